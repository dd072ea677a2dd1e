-- afr store, schema version 10: what each LLM step did, as data rather than inferred from
-- timings. runs.fallbacks: the LLM steps of an ask that fell back (step, kind, error,
-- instead); eval_results.steps: per question, how steps 1–2 were written (llm, offline,
-- given), whether step 8 reranked, and the fallbacks' steps and kinds.
ALTER TABLE runs ADD COLUMN IF NOT EXISTS fallbacks JSON;
ALTER TABLE eval_results ADD COLUMN IF NOT EXISTS steps JSON;
