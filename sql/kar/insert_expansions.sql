INSERT INTO run_kar_expansions (run_id, sample, source, text)
SELECT $run_id, unnest(CAST($samples AS INTEGER[])), unnest(CAST($sources AS VARCHAR[])),
       unnest(CAST($texts AS VARCHAR[]))
