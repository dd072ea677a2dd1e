INSERT INTO runs (run_id, question, mode, config, target_type, cypher, query_graph, timings,
                  llm_calls, llm_tokens, status, warnings, eval_id, question_id, outcome,
                  fixes, repair, fallbacks)
VALUES ($run_id, $question, $mode, CAST($config AS JSON), $target_type, $cypher,
        CAST($query_graph AS JSON), CAST($timings AS JSON), $llm_calls, $llm_tokens, $status,
        CAST($warnings AS JSON), $eval_id, $question_id, $outcome, CAST($fixes AS JSON),
        CAST($repair AS JSON), CAST($fallbacks AS JSON))
