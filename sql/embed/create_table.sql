-- One table per document variant; the dimension is fixed by the embedder that fills it.
CREATE TABLE IF NOT EXISTS emb_{{ variant }} (
    node_id BIGINT PRIMARY KEY,
    vec     FLOAT[{{ dim }}] NOT NULL
)
