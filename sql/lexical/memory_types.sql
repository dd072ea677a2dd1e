-- The indexed node types and their BM25 statistics, for the postings file
-- (afr.lexical.memory).
SELECT type, n_docs, total_len
FROM lex_stats
ORDER BY type
