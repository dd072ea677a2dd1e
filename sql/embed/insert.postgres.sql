COPY emb_{{ variant }} (node_id{% if typed %}, type_code{% endif %}, vec) FROM STDIN (FORMAT binary)
