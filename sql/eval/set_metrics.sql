-- The run's summary (metrics per variant, latency, LLM cost), refreshed when it stops.
UPDATE eval_runs SET metrics = CAST($metrics AS JSON) WHERE eval_id = $eval_id
