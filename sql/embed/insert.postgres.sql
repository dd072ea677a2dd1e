COPY emb_{{ variant }} (node_id, vec) FROM STDIN (FORMAT binary)
