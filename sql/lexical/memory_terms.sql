-- One type's terms and their numbers of postings, in the order memory_postings.sql
-- reads the postings (afr.lexical.memory).
SELECT term, count(*) AS n
FROM lex_postings
WHERE type = $type
GROUP BY term
ORDER BY term
