DELETE FROM query_embeddings WHERE model_id = $model_id AND text_hash = $text_hash;
INSERT INTO query_embeddings (model_id, text_hash, text, vec)
VALUES ($model_id, $text_hash, $text, CAST($vec AS FLOAT[]))
