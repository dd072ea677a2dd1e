-- The loader's temporary staging tables left on this connection.
SELECT table_name FROM duckdb_tables() WHERE temporary AND table_name LIKE 'stg\_%' ESCAPE '\'
