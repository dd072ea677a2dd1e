-- One run's row.
SELECT run_id, created_at, question, mode, config, target_type, cypher, query_graph,
       timings, llm_calls, llm_tokens, status, warnings, eval_id, question_id
FROM runs WHERE run_id = $run_id
