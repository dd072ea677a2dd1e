-- --replace: empty everything that belongs to the SKB currently in the store.
-- llm_calls stays: it is a cache keyed by prompt, still valid for a reloaded SKB.
{% for t in tables %}
TRUNCATE TABLE {{ t }};
{% endfor %}
DROP TABLE IF EXISTS emb_doc;
DROP TABLE IF EXISTS emb_doc_rel;
DROP TABLE IF EXISTS emb_doc_rebuild;
DROP TABLE IF EXISTS emb_doc_rel_rebuild;
DELETE FROM embedding_models;
DELETE FROM run_symbols;
DELETE FROM run_answers;
DELETE FROM run_kar_entities;
DELETE FROM run_kar_triples;
DELETE FROM run_kar_expansions;
DELETE FROM runs;
DELETE FROM afr_meta WHERE key LIKE 'skb_%';
DELETE FROM afr_meta WHERE key LIKE 'rebuild_%'
