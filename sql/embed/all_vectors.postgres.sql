-- Every vector of one variant with its node's type, ordered by type (byte order, as DuckDB
-- sorts), then node id: the block layout of an in-memory search matrix (exact mode). As
-- real[]: plain float lists, the same float32 values as stored.
SELECT e.node_id, n.type, CAST(e.vec AS REAL[]) AS vec
FROM emb_{{ variant }} AS e
JOIN nodes AS n ON n.id = e.node_id
ORDER BY n.type COLLATE "C", e.node_id
