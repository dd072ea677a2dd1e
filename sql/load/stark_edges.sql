-- Undirected: an edge stored both ways, or twice, is kept once (first orientation seen).
CREATE OR REPLACE TEMP TABLE stg_edges AS
SELECT line, src, type, dst, CAST(src AS VARCHAR) AS src_ext, type AS type_written,
       CAST(dst AS VARCHAR) AS dst_ext, NULL AS src_type, NULL AS dst_type
FROM (
    SELECT e.line, e.src, n.name AS type, e.dst,
           row_number() OVER (PARTITION BY e.t, least(e.src, e.dst), greatest(e.src, e.dst)
                              ORDER BY e.line) AS k
    FROM (SELECT row_number() OVER () AS line, src, dst, t FROM stark_edges) AS e
    JOIN stark_edge_names AS n ON n.t = e.t
) AS numbered
WHERE k = 1
