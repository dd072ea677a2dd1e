-- edges.csv(.gz): src,type,dst. Line numbers count the header as line 1.
CREATE OR REPLACE TEMP TABLE stg_edge_names AS
SELECT unnest(CAST($names AS VARCHAR[])) AS name, unnest(CAST($types AS VARCHAR[])) AS type;
CREATE OR REPLACE TEMP TABLE stg_raw_edges AS
SELECT ordinality + 1 AS line, src, type, dst
FROM read_csv($path, header = true, auto_detect = false, delim = ',', quote = '"', escape = '"',
              columns = {'src': 'VARCHAR', 'type': 'VARCHAR', 'dst': 'VARCHAR'})
WITH ORDINALITY;
CREATE OR REPLACE TEMP TABLE stg_edges AS
SELECT r.line, s.id AS src, t.type AS type, d.id AS dst,
       r.src AS src_ext, r.type AS type_written, r.dst AS dst_ext,
       s.type AS src_type, d.type AS dst_type
FROM stg_raw_edges AS r
LEFT JOIN stg_nodes AS s ON s.ext_id = r.src
LEFT JOIN stg_edge_names AS t ON t.name = r.type
LEFT JOIN stg_nodes AS d ON d.ext_id = r.dst;
DROP TABLE stg_raw_edges
