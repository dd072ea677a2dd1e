-- Every vector of one variant with its node's type, for an in-memory search matrix.
SELECT e.node_id, n.type, e.vec
FROM emb_{{ variant }} AS e
JOIN nodes AS n ON n.id = e.node_id
ORDER BY e.node_id
