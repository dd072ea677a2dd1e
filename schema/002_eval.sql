-- afr store, schema version 2: what `afr eval` needs beyond version 1.
-- Per question: its place in the question set, the text asked, how it went
-- (ok | degraded | failed), its wall time and seconds per step, and what it cost in LLM
-- prompts (needed by the method, cached or not), prompts actually sent, and tokens.
ALTER TABLE eval_results ADD COLUMN position INTEGER;
ALTER TABLE eval_results ADD COLUMN query TEXT;
ALTER TABLE eval_results ADD COLUMN status TEXT;
ALTER TABLE eval_results ADD COLUMN seconds DOUBLE;
ALTER TABLE eval_results ADD COLUMN timings JSON;
ALTER TABLE eval_results ADD COLUMN llm_prompts INTEGER;
ALTER TABLE eval_results ADD COLUMN llm_new_calls INTEGER;
ALTER TABLE eval_results ADD COLUMN llm_tokens BIGINT;

-- One ranked list (node ext_ids) per question and ablation / sweep variant ("1+7", "1-5",
-- …, "alpha=0.5"), all derived from a single ask of the question.
CREATE TABLE IF NOT EXISTS eval_variants (
    eval_id     TEXT NOT NULL,
    question_id TEXT NOT NULL,
    variant     TEXT NOT NULL,
    ranked      JSON,
    metrics     JSON,
    PRIMARY KEY (eval_id, question_id, variant)
);
