-- Whether the HNSW index of an embedding table exists (it is built after the vectors).
SELECT 1 FROM pg_indexes
WHERE schemaname = current_schema() AND indexname = %(index)s
