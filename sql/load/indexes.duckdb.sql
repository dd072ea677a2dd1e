-- DuckDB answers our joins with hash joins over table scans and needs no B-tree indexes
-- (PostgreSQL builds them after a load: load/indexes.postgres.sql). What it needs is less
-- to scan. edge_lists is the edges table as adjacency lists: one row per (edge type, side,
-- node, neighbour type) holding the neighbours as a list ('src': the node is the edges'
-- src, the list their dsts). Stored in that order, a grounding hop reads only its edge
-- type's rows, one per node rather than one per edge (ground/macros.sql, ground/witness.sql).
-- Rebuilt whole by every load, inside its transaction; 'skb_edge_lists' marks a store that
-- has it (one loaded by an earlier afr scans edges instead).
CREATE OR REPLACE TABLE edge_lists AS
SELECT type, side, node, nbr_type, nbrs FROM (
    SELECT e.type, 'src' AS side, e.src AS node, n.type AS nbr_type, list(e.dst) AS nbrs
    FROM edges AS e JOIN nodes AS n ON n.id = e.dst
    GROUP BY e.type, e.src, n.type
    UNION ALL
    SELECT e.type, 'dst' AS side, e.dst AS node, n.type AS nbr_type, list(e.src) AS nbrs
    FROM edges AS e JOIN nodes AS n ON n.id = e.src
    GROUP BY e.type, e.dst, n.type
) AS lists
ORDER BY type, side, node, nbr_type;
DELETE FROM afr_meta WHERE key = 'skb_edge_lists';
INSERT INTO afr_meta (key, value) VALUES ('skb_edge_lists', '1')
