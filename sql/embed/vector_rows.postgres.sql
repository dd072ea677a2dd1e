-- The rows of one variant's search matrix, without their vectors: node id and type,
-- ordered by type (byte order, as DuckDB sorts), then node id (the block layout of
-- afr.vectors.memory, which then reads the vectors a range at a time).
SELECT e.node_id, n.type
FROM emb_{{ variant }} AS e
JOIN nodes AS n ON n.id = e.node_id
ORDER BY n.type COLLATE "C", e.node_id
