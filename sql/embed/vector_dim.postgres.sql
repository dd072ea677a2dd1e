-- The dimension of a variant's vectors (pgvector's vector_dims of any one row).
SELECT vector_dims(vec) FROM emb_{{ variant }} LIMIT 1
