DROP TABLE IF EXISTS emb_{{ variant }};
DELETE FROM embedding_models WHERE variant = $variant
