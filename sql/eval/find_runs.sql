-- Runs whose id starts with the given text, or whose name is it; newest first.
SELECT eval_id, name
FROM eval_runs
WHERE substr(eval_id, 1, length($ref)) = $ref OR name = $ref
ORDER BY created_at DESC
