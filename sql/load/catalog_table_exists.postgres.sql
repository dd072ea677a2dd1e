-- Whether the table (or view) a user names for an SKB's nodes or edges (afr load
-- --nodes-table lake.skb_nodes) is one of this database: names as PostgreSQL folds them.
SELECT 1 FROM information_schema.tables
WHERE table_schema = %(schema)s AND table_name = %(table)s
  AND table_catalog = coalesce(%(catalog)s::text, current_database()::text)
