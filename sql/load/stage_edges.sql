-- The edges read into stg_raw_edges (load/read_edges.sql, load/read_edges_table.sql),
-- their ends and types resolved. An edge may name its type by key or by prompt label.
CREATE OR REPLACE TEMP TABLE stg_edge_names AS
SELECT unnest(CAST($names AS VARCHAR[])) AS name, unnest(CAST($types AS VARCHAR[])) AS type;
-- Narrow: what was written is kept only where it says more than the ids do (an unknown
-- node or type, a type written by its label), for the error details; load/check_edges.sql
-- finds the rest from the ids. Endpoint types are joined in when they are checked.
CREATE OR REPLACE TEMP TABLE stg_edges AS
SELECT r.line, s.id AS src, t.type AS type, d.id AS dst,
       CASE WHEN s.id IS NULL THEN r.src END AS src_ext,
       CASE WHEN t.type IS NULL OR t.type <> r.type THEN r.type END AS type_written,
       CASE WHEN d.id IS NULL THEN r.dst END AS dst_ext
FROM stg_raw_edges AS r
LEFT JOIN stg_nodes AS s ON s.ext_id = r.src
LEFT JOIN stg_edge_names AS t ON t.name = r.type
LEFT JOIN stg_nodes AS d ON d.ext_id = r.dst;
DROP TABLE stg_raw_edges
