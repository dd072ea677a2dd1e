SELECT eval_id, created_at, name, dataset, split, config, status, metrics
FROM eval_runs
WHERE eval_id = $eval_id
