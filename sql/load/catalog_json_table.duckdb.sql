-- A named PostgreSQL table's rows, exported as JSON lines, as the staging's table (the
-- view name a file's table has): every line read for the columns' types, so that a key
-- of attrs that few rows carry keeps its type.
CREATE OR REPLACE TEMP TABLE {{ view }} AS
SELECT * FROM read_json($path, format = 'newline_delimited', sample_size = -1)
