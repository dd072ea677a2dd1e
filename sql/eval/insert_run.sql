-- A new evaluation run; its settings (question source, split, sampling, pipeline knobs,
-- sweeps) are kept in config so that `afr eval --resume` can carry on with the same ones;
-- pid and host name the process that runs it.
INSERT INTO eval_runs (eval_id, name, dataset, split, config, status, metrics, pid, host)
VALUES ($eval_id, $name, $dataset, $split, CAST($config AS JSON), $status, NULL, $pid, $host)
