{# owner: the store has eval_runs.pid and host (schema 14); an older one, read-only, not. #}
SELECT r.eval_id, r.created_at, r.name, r.dataset, r.split, r.status, r.config, r.metrics,
       count(e.question_id) AS done,
       {{ "r.pid, r.host" if owner else "NULL AS pid, NULL AS host" }}
FROM eval_runs r
LEFT JOIN eval_results e ON e.eval_id = r.eval_id
GROUP BY r.eval_id, r.created_at, r.name, r.dataset, r.split, r.status, r.config, r.metrics
         {{- ", r.pid, r.host" if owner }}
ORDER BY r.created_at DESC
LIMIT $limit
