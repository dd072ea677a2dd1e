-- A question about to be (re)done loses its earlier rows.
DELETE FROM eval_variants WHERE eval_id = $eval_id AND question_id = $question_id;
DELETE FROM eval_results WHERE eval_id = $eval_id AND question_id = $question_id
