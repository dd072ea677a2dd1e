DELETE FROM embedding_models WHERE variant = $variant;
INSERT INTO embedding_models (variant, model_id, dim, node_count)
SELECT $variant, $model_id, $dim, count(*) FROM emb_{{ variant }}
