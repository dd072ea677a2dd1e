-- Every vector of one variant with its node's type, for an in-memory search matrix
-- (exact mode). As real[]: plain float lists, the same float32 values as stored.
SELECT e.node_id, n.type, CAST(e.vec AS REAL[]) AS vec
FROM emb_{{ variant }} AS e
JOIN nodes AS n ON n.id = e.node_id
ORDER BY e.node_id
