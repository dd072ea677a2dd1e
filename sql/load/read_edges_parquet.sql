-- edges.parquet (a file, or a folder of part files): columns src, type, dst. Rows count
-- from 1.
CREATE OR REPLACE TEMP TABLE stg_raw_edges AS
SELECT row_number() OVER () AS line, CAST(src AS VARCHAR) AS src, CAST(type AS VARCHAR) AS type,
       CAST(dst AS VARCHAR) AS dst
FROM read_parquet($path)
