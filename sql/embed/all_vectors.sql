-- Every vector of one variant with its node's type, ordered by type, then node id: the
-- block layout of an in-memory search matrix (afr.vectors.memory).
SELECT e.node_id, n.type, e.vec
FROM emb_{{ variant }} AS e
JOIN nodes AS n ON n.id = e.node_id
ORDER BY n.type, e.node_id
