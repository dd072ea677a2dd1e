-- afr's approximate (HNSW) vector indexes in its schema: each index, its table and its
-- size (afr info).
SELECT c.relname AS name, t.relname AS table_name, pg_relation_size(c.oid)::BIGINT AS bytes
FROM pg_class AS c
JOIN pg_am AS am ON am.oid = c.relam
JOIN pg_index AS i ON i.indexrelid = c.oid
JOIN pg_class AS t ON t.oid = i.indrelid
WHERE c.relnamespace = CAST(current_schema() AS regnamespace)
  AND c.relkind = 'i' AND am.amname = 'hnsw'
ORDER BY c.relname
