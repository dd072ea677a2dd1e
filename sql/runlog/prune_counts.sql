-- What `afr runs prune --before DATE` removes: the asks logged before that time which no
-- eval run keeps (asks of `afr ask`, and of evals deleted since), and the eval runs' asks
-- it leaves (`afr eval delete` removes those with their run).
SELECT count(*) FILTER (WHERE eval_id IS NULL
                        OR eval_id NOT IN (SELECT eval_id FROM eval_runs)) AS pruned,
       count(*) FILTER (WHERE eval_id IN (SELECT eval_id FROM eval_runs)) AS kept
FROM runs
WHERE created_at < $before
