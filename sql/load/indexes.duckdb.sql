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
;
-- node_lower_texts: every node's text lower-cased once, by the store's own lower(), in
-- (type, id) order and stored uncompressed. A text condition (text_match.sql) then LIKEs
-- the stored lower-case text of one type's rows instead of folding every text of the type
-- per question: over the 82K WordNet noun glosses 5.5 ms, against 10.4 from a compressed
-- copy (DuckDB's FSST is decoded on every scan) and 26 by ILIKE on nodes. The price is
-- the texts' bytes once more on disk. Rebuilt whole by every load, inside its
-- transaction; 'skb_lower_texts' marks a store that has it (one loaded by an earlier afr
-- folds on the fly).
DROP TABLE IF EXISTS node_lower_texts;
CREATE TABLE node_lower_texts (
    type TEXT NOT NULL,
    id   BIGINT NOT NULL,
    text TEXT NOT NULL USING COMPRESSION uncompressed
);
INSERT INTO node_lower_texts
SELECT type, id, lower(coalesce(text, '')) AS text
FROM nodes
ORDER BY type, id;
DELETE FROM afr_meta WHERE key = 'skb_lower_texts';
INSERT INTO afr_meta (key, value) VALUES ('skb_lower_texts', '1')
