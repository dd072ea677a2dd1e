-- DuckDB's buffer pool may grow to 80% of RAM by default; afr's own arrays (vector
-- matrices, embedding batches) and the page cache of the mapped matrices need the rest.
SET memory_limit = '{{ mb | int }}MiB'
