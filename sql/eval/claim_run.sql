-- A run resumed: running again, in this process.
UPDATE eval_runs SET status = 'running', pid = $pid, host = $host WHERE eval_id = $eval_id
