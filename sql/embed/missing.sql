-- Nodes that have no vector of this variant yet (what an incremental `afr embed` does next).
SELECT n.id
FROM nodes AS n
WHERE NOT EXISTS (SELECT 1 FROM emb_{{ variant }} AS e WHERE e.node_id = n.id)
ORDER BY n.id
