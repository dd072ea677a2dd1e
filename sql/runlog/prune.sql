-- `afr runs prune --before DATE` (run in one transaction; see prune_counts.sql): the
-- runs go last, so every statement sees the same ones. The llm_calls cache stays: it
-- is keyed by prompt, not by run.
DELETE FROM run_answers
WHERE run_id IN (SELECT run_id FROM runs WHERE created_at < $before
                 AND (eval_id IS NULL OR eval_id NOT IN (SELECT eval_id FROM eval_runs)));
DELETE FROM run_symbols
WHERE run_id IN (SELECT run_id FROM runs WHERE created_at < $before
                 AND (eval_id IS NULL OR eval_id NOT IN (SELECT eval_id FROM eval_runs)));
DELETE FROM run_kar_entities
WHERE run_id IN (SELECT run_id FROM runs WHERE created_at < $before
                 AND (eval_id IS NULL OR eval_id NOT IN (SELECT eval_id FROM eval_runs)));
DELETE FROM run_kar_triples
WHERE run_id IN (SELECT run_id FROM runs WHERE created_at < $before
                 AND (eval_id IS NULL OR eval_id NOT IN (SELECT eval_id FROM eval_runs)));
DELETE FROM run_kar_expansions
WHERE run_id IN (SELECT run_id FROM runs WHERE created_at < $before
                 AND (eval_id IS NULL OR eval_id NOT IN (SELECT eval_id FROM eval_runs)));
DELETE FROM runs
WHERE created_at < $before
  AND (eval_id IS NULL OR eval_id NOT IN (SELECT eval_id FROM eval_runs))
