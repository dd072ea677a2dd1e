SELECT r.eval_id, r.created_at, r.name, r.dataset, r.split, r.status, r.config, r.metrics,
       count(e.question_id) AS done
FROM eval_runs r
LEFT JOIN eval_results e ON e.eval_id = r.eval_id
GROUP BY r.eval_id, r.created_at, r.name, r.dataset, r.split, r.status, r.config, r.metrics
ORDER BY r.created_at DESC
LIMIT $limit
