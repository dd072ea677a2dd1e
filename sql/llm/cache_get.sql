-- The latest successful reply stored under a cache key.
SELECT response, model, prompt_tokens, completion_tokens, latency_s, finish_reason, reasoning
FROM llm_calls
WHERE key = $key AND error IS NULL AND response IS NOT NULL
ORDER BY created_at DESC
LIMIT 1
