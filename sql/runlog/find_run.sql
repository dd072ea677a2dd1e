-- Runs whose id starts with $prefix (letters and digits only: checked by the caller).
SELECT run_id FROM runs WHERE starts_with(run_id, $prefix) ORDER BY run_id LIMIT 2
