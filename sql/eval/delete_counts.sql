-- What `afr eval delete` removes: the run's question rows and its questions' logged runs.
SELECT (SELECT count(*) FROM eval_results WHERE eval_id = $eval_id) AS questions,
       (SELECT count(*) FROM runs WHERE eval_id = $eval_id) AS runs
