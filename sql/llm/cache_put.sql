INSERT INTO llm_calls (key, run_id, step, model, request, response, reasoning, finish_reason,
                       prompt_tokens, completion_tokens, latency_s, error)
VALUES ($key, $run_id, $step, $model, CAST($request AS JSON), $response, $reasoning,
        $finish_reason, $prompt_tokens, $completion_tokens, $latency_s, $error)
