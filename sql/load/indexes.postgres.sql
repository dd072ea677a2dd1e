-- Built after the data is in: bulk loads into indexed tables are much slower (they are
-- dropped before a load: load/drop_indexes.postgres.sql).
CREATE UNIQUE INDEX IF NOT EXISTS nodes_id ON nodes (id);
CREATE UNIQUE INDEX IF NOT EXISTS nodes_ext_id ON nodes (ext_id);
CREATE INDEX IF NOT EXISTS nodes_type ON nodes (type, id);
CREATE INDEX IF NOT EXISTS node_aliases_node ON node_aliases (node_id);
CREATE INDEX IF NOT EXISTS nodes_lower_name ON nodes (lower(name));
CREATE INDEX IF NOT EXISTS node_aliases_lower ON node_aliases (lower(alias));
CREATE INDEX IF NOT EXISTS edges_src ON edges (src, type, dst);
CREATE INDEX IF NOT EXISTS edges_dst ON edges (dst, type, src);
CREATE INDEX IF NOT EXISTS node_names_key ON node_names (name_key);
-- edge_presence: which edges each node has, one row per (node, edge type, side, neighbour
-- type), without the neighbours ('src': the node is the edges' src). Grounding's "has some
-- neighbour along these edges" checks probe it (ground/macros.sql exists_filter): a probe
-- per row into its 69 MB at PRIME size stays in the buffer pool, where the same probe into
-- edges_src (406 MB) kept reading pages from the OS. Rebuilt whole by every load, inside
-- its transaction; 'skb_edge_presence' marks a store that has it.
DROP TABLE IF EXISTS edge_presence;
CREATE TABLE edge_presence AS
SELECT DISTINCT node, type, side, nbr_type FROM (
    SELECT e.src AS node, e.type, 'src' AS side, n.type AS nbr_type
    FROM edges AS e JOIN nodes AS n ON n.id = e.dst
    UNION ALL
    SELECT e.dst AS node, e.type, 'dst' AS side, n.type AS nbr_type
    FROM edges AS e JOIN nodes AS n ON n.id = e.src
) AS sides;
CREATE INDEX edge_presence_node ON edge_presence (node, type, side, nbr_type);
ANALYZE edge_presence;
DELETE FROM afr_meta WHERE key = 'skb_edge_presence';
INSERT INTO afr_meta (key, value) VALUES ('skb_edge_presence', '1')
;
-- node_lower_texts: every node's text lower-cased once, in (type, id) order, so that a
-- text condition (text_match.sql) LIKEs stored lower-case text instead of calling lower()
-- on every text of the type per question. Rebuilt whole by every load, inside its
-- transaction; 'skb_lower_texts' marks a store that has it.
DROP TABLE IF EXISTS node_lower_texts;
CREATE TABLE node_lower_texts AS
SELECT type, id, lower(coalesce(text, '')) AS text
FROM nodes
ORDER BY type, id;
CREATE INDEX node_lower_texts_type ON node_lower_texts (type, id);
ANALYZE node_lower_texts;
DELETE FROM afr_meta WHERE key = 'skb_lower_texts';
INSERT INTO afr_meta (key, value) VALUES ('skb_lower_texts', '1')
