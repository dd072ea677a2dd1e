-- Runs that say they are running, and the process that said so.
SELECT eval_id, pid, host FROM eval_runs WHERE status = 'running'
