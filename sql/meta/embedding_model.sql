SELECT model_id, dim, node_count FROM embedding_models WHERE variant = $variant
