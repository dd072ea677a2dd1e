{# owner: the store has eval_runs.pid and host (schema 14); an older one, read-only, not. #}
SELECT eval_id, created_at, name, dataset, split, config, status, metrics,
       {{ "pid, host" if owner else "NULL AS pid, NULL AS host" }}
FROM eval_runs
WHERE eval_id = $eval_id
