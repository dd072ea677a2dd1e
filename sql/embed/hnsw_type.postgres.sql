-- The approximate index of one node type's vectors: a partial HNSW index over the rows of
-- type_code {{ code }}. pgvector (before iterative scans) filters only after the index has
-- returned its ef_search nearest rows, so a search within one type of the index over all
-- types must over-fetch by the inverse of the type's share, and beyond what ef_search can
-- hold it falls back to an exact scan of the whole table. This index answers the type's
-- top k directly (vss/topk_ann.postgres.sql).
CREATE INDEX IF NOT EXISTS emb_{{ variant }}_hnsw_t{{ code }} ON emb_{{ variant }}
USING hnsw (vec vector_cosine_ops) WHERE type_code = {{ code }}
