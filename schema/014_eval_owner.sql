-- afr store, schema version 14 (issue 23): which process runs an eval. A run whose process
-- is gone (killed, the machine restarted) is read as interrupted instead of "running"
-- forever, and a resume or a delete can tell a live run from a dead one.
ALTER TABLE eval_runs ADD COLUMN IF NOT EXISTS pid INTEGER;
ALTER TABLE eval_runs ADD COLUMN IF NOT EXISTS host TEXT;
