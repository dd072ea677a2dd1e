INSERT INTO run_symbols (run_id, symbol, node_id, rank, level, score)
SELECT $run_id, unnest(CAST($symbols AS VARCHAR[])), unnest(CAST($node_ids AS BIGINT[])),
       unnest(CAST($ranks AS INTEGER[])), unnest(CAST($levels AS INTEGER[])),
       unnest(CAST($scores AS DOUBLE[]))
