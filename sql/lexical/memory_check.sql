-- How many postings the index holds, to check a mapped postings file against
-- (afr.lexical.memory): DuckDB answers count(*) from its row-group metadata.
SELECT count(*) AS postings
FROM lex_postings
