UPDATE eval_runs SET status = $status WHERE eval_id = $eval_id
