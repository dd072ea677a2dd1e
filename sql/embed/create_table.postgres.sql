-- One table per document variant; the dimension is fixed by the embedder that fills it.
-- type_code is the node's type as its position among the SKB's types, sorted by name
-- (Store.type_codes): the key of the per-type approximate indexes (embed/hnsw_type.sql).
CREATE TABLE IF NOT EXISTS emb_{{ variant }} (
    node_id   BIGINT PRIMARY KEY,
    type_code INTEGER,
    vec       VECTOR({{ dim }}) NOT NULL
)
