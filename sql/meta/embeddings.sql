SELECT variant, model_id, dim, node_count FROM embedding_models ORDER BY variant
