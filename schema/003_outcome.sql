-- afr store, schema version 3 (issue 13): how each run's Cypher went.
-- outcome: valid | fixed | repaired | relaxed | unanswerable | failed (afr.methods.af.repair;
-- 'relaxed' came later: a new value needs no migration);
-- fixes: the deterministic fixes applied (kind, where, before, after, note);
-- repair: the repair round when one ran (original query, problems, reply, used, note).
ALTER TABLE runs ADD COLUMN outcome TEXT;
ALTER TABLE runs ADD COLUMN fixes JSON;
ALTER TABLE runs ADD COLUMN repair JSON;
-- The outcome per evaluated question too, so a summary counts them without the run log
-- (and a question that raised counts as failed).
ALTER TABLE eval_results ADD COLUMN outcome TEXT;
