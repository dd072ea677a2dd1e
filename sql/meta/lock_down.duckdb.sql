-- Read-only DuckDB stores: no file system access beyond the open store. DuckDB refuses
-- to switch it back on while the database is open, so no later statement can undo it.
SET enable_external_access = false
