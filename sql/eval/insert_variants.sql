INSERT INTO eval_variants (eval_id, question_id, variant, ranked, metrics)
SELECT $eval_id, $question_id, unnest(CAST($variants AS VARCHAR[])),
       CAST(unnest(CAST($ranked AS VARCHAR[])) AS JSON),
       CAST(unnest(CAST($metrics AS VARCHAR[])) AS JSON)
