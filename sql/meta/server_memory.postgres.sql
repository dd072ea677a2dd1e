-- The server's shared buffer pool next to the HNSW indexes of afr's schema: a search
-- reads its index's pages through that pool, and copies them in from the OS page cache
-- when the pool is smaller than what the searches touch.
SELECT
    pg_size_bytes(current_setting('shared_buffers')) AS shared_buffers,
    (SELECT COALESCE(SUM(pg_relation_size(c.oid)), 0)::BIGINT
       FROM pg_class AS c
       JOIN pg_am AS am ON am.oid = c.relam
      WHERE c.relnamespace = CAST(current_schema() AS regnamespace)
        AND c.relkind = 'i' AND am.amname = 'hnsw') AS vector_indexes
