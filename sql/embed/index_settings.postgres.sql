-- For one HNSW build's transaction only (set_config(…, true) is SET LOCAL with bound
-- values). pgvector builds the graph in memory while it fits in maintenance_work_mem and
-- far slower once it does not (the server's default is 64 MB: ~25K vectors of 384-d);
-- parallel workers share the build. Both settings are the session's own to choose.
SELECT set_config('maintenance_work_mem', %(memory)s, true);
SELECT set_config('max_parallel_maintenance_workers', %(workers)s, true)
