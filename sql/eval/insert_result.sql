INSERT INTO eval_results (eval_id, question_id, run_id, ranked, gold, metrics, error, position,
                          query, status, seconds, timings, llm_prompts, llm_new_calls,
                          llm_tokens, outcome, steps)
VALUES ($eval_id, $question_id, $run_id, CAST($ranked AS JSON), CAST($gold AS JSON),
        CAST($metrics AS JSON), $error, $position, $query, $status, $seconds,
        CAST($timings AS JSON), $llm_prompts, $llm_new_calls, $llm_tokens, $outcome,
        CAST($steps AS JSON))
