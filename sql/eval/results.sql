SELECT question_id, position, query, run_id, ranked, gold, metrics, error, status, seconds,
       timings, llm_prompts, llm_new_calls, llm_tokens, outcome, steps
FROM eval_results
WHERE eval_id = $eval_id
ORDER BY position, question_id
