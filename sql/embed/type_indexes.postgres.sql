-- The per-type approximate indexes of an embedding table (embed/hnsw_type.postgres.sql),
-- by name: emb_<variant>_hnsw_t<type code>.
SELECT indexname FROM pg_indexes
WHERE schemaname = current_schema() AND tablename = %(table)s
  AND indexname LIKE %(prefix)s
