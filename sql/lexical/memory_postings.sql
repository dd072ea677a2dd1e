-- One type's postings by term, then node id: term i's are the next n of
-- memory_terms.sql's row i (afr.lexical.memory).
SELECT node_id, tf, len
FROM lex_postings
WHERE type = $type
ORDER BY term, node_id
