-- The newest runs, with each one's top answer (final rank 1) and settings (the method),
-- newest first.
SELECT r.run_id, r.created_at, r.mode, r.status, r.question, r.target_type, r.eval_id,
       r.config,
       n.ext_id AS top_ext_id, n.name AS top_name,
       (SELECT count(*) FROM run_answers AS c WHERE c.run_id = r.run_id) AS answers
FROM runs AS r
LEFT JOIN run_answers AS a ON a.run_id = r.run_id AND a.final_rank = 1
LEFT JOIN nodes AS n ON n.id = a.node_id
{% if not with_eval %}
WHERE r.eval_id IS NULL
{% endif %}
ORDER BY r.created_at DESC, r.run_id
LIMIT $limit
