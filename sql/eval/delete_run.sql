-- `afr eval delete`: a run, its rows and the run log of its questions (run in one
-- transaction). The llm_calls cache stays: it is keyed by prompt, not by run.
DELETE FROM eval_variants WHERE eval_id = $eval_id;
DELETE FROM eval_results WHERE eval_id = $eval_id;
DELETE FROM run_answers WHERE run_id IN (SELECT run_id FROM runs WHERE eval_id = $eval_id);
DELETE FROM run_symbols WHERE run_id IN (SELECT run_id FROM runs WHERE eval_id = $eval_id);
DELETE FROM run_kar_entities WHERE run_id IN (SELECT run_id FROM runs WHERE eval_id = $eval_id);
DELETE FROM run_kar_triples WHERE run_id IN (SELECT run_id FROM runs WHERE eval_id = $eval_id);
DELETE FROM run_kar_expansions
WHERE run_id IN (SELECT run_id FROM runs WHERE eval_id = $eval_id);
DELETE FROM runs WHERE eval_id = $eval_id;
DELETE FROM eval_runs WHERE eval_id = $eval_id
