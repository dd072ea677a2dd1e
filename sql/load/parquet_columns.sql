-- The columns of a Parquet table (a file, or a glob over part files) and their types.
DESCRIBE SELECT * FROM read_parquet($path)
