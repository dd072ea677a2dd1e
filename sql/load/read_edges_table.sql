-- The edges table (edges.parquet, or a Delta or Iceberg table, through a view:
-- afr/load/tables.py): columns src, type, dst. Rows count from 1.
CREATE OR REPLACE TEMP TABLE stg_raw_edges AS
SELECT row_number() OVER () AS line, CAST(src AS VARCHAR) AS src, CAST(type AS VARCHAR) AS type,
       CAST(dst AS VARCHAR) AS dst
FROM {{ view }}
