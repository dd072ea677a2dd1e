INSERT INTO run_answers (run_id, node_id, source, level, vss_score, rerank_position, final_rank,
                         provenance)
SELECT $run_id, unnest(CAST($node_ids AS BIGINT[])), unnest(CAST($sources AS VARCHAR[])),
       unnest(CAST($levels AS INTEGER[])), unnest(CAST($scores AS DOUBLE[])),
       unnest(CAST($positions AS INTEGER[])), unnest(CAST($ranks AS INTEGER[])),
       CAST(unnest(CAST($provenance AS VARCHAR[])) AS JSON)
