-- For this load's transaction only: memory and workers for the index builds after COPY.
SET LOCAL maintenance_work_mem = '1GB';
SET LOCAL max_parallel_maintenance_workers = 2
