-- Whether the lexical index holds anything.
SELECT 1 FROM lex_stats LIMIT 1
