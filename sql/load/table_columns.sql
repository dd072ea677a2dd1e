-- The columns of a table view (Parquet, Delta or Iceberg: afr/load/tables.py) and their
-- types.
DESCRIBE SELECT * FROM {{ view }}
