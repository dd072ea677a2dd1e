-- One batch of the lexical index: postings (term, node, tf) and each node's length; the
-- node's type comes from nodes.
INSERT INTO lex_postings (term, node_id, tf)
SELECT unnest(CAST($terms AS VARCHAR[])), unnest(CAST($term_nodes AS BIGINT[])),
       unnest(CAST($tfs AS INTEGER[]));
INSERT INTO lex_docs (node_id, type, len)
SELECT n.id, n.type, b.len
FROM (SELECT unnest(CAST($ids AS BIGINT[])) AS id, unnest(CAST($lens AS INTEGER[])) AS len) AS b
JOIN nodes AS n ON n.id = b.id
