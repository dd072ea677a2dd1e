-- For this load's transaction only: memory and workers for the index builds after COPY,
-- and for the grouping that builds edge_presence (load/indexes.postgres.sql) in memory.
SET LOCAL maintenance_work_mem = '1GB';
SET LOCAL max_parallel_maintenance_workers = 2;
SET LOCAL work_mem = '256MB'
