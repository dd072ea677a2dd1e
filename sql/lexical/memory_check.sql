-- How many postings the index holds, to check a mapped postings file against
-- (afr.lexical.memory): a count DuckDB answers in about a millisecond on 4.3M postings.
SELECT count(*) AS postings
FROM lex_postings
