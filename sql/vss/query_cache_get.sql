SELECT vec FROM query_embeddings WHERE model_id = $model_id AND text_hash = $text_hash
