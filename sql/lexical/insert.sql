-- One batch of the lexical index: each node's length (its type from nodes), then the
-- postings (term, node, tf) with their node's type and length, which BM25 reads.
INSERT INTO lex_docs (node_id, type, len)
SELECT n.id, n.type, b.len
FROM (SELECT unnest(CAST($ids AS BIGINT[])) AS id, unnest(CAST($lens AS INTEGER[])) AS len) AS b
JOIN nodes AS n ON n.id = b.id;
INSERT INTO lex_postings (term, node_id, tf, type, len)
SELECT p.term, p.node_id, p.tf, d.type, d.len
FROM (SELECT unnest(CAST($terms AS VARCHAR[])) AS term,
             unnest(CAST($term_nodes AS BIGINT[])) AS node_id,
             unnest(CAST($tfs AS INTEGER[])) AS tf) AS p
JOIN lex_docs AS d ON d.node_id = p.node_id
