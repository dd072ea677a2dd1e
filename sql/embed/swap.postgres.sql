-- A finished rebuild takes the place of the old vectors (inside the caller's transaction);
-- its indexes take the old names, so the next rebuild's shadow can use its own again.
DROP TABLE IF EXISTS emb_{{ variant }};
ALTER TABLE emb_{{ shadow }} RENAME TO emb_{{ variant }};
ALTER INDEX IF EXISTS emb_{{ shadow }}_pkey RENAME TO emb_{{ variant }}_pkey;
ALTER INDEX IF EXISTS emb_{{ shadow }}_hnsw RENAME TO emb_{{ variant }}_hnsw;
{% for code in codes %}
ALTER INDEX IF EXISTS emb_{{ shadow }}_hnsw_t{{ code }} RENAME TO emb_{{ variant }}_hnsw_t{{ code }};
{% endfor %}
