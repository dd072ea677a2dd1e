-- Whether any node is indexed yet (a first build records its tokeniser).
SELECT 1 FROM lex_docs LIMIT 1
