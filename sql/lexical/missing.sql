-- Nodes without a lexical-index row yet (what an incremental `afr index` does next).
SELECT n.id
FROM nodes AS n
WHERE NOT EXISTS (SELECT 1 FROM lex_docs AS d WHERE d.node_id = n.id)
ORDER BY n.id
