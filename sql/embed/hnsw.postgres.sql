CREATE INDEX IF NOT EXISTS emb_{{ variant }}_hnsw ON emb_{{ variant }}
USING hnsw (vec vector_cosine_ops)
