SELECT question_id, variant, ranked, metrics
FROM eval_variants
WHERE eval_id = $eval_id
