INSERT INTO run_kar_triples (run_id, entity, rank, head, r1, forward1, mid, r2, forward2, tail,
                             hop, score, rendered)
SELECT $run_id, unnest(CAST($entities AS INTEGER[])), unnest(CAST($ranks AS INTEGER[])),
       unnest(CAST($heads AS BIGINT[])), unnest(CAST($r1s AS VARCHAR[])),
       unnest(CAST($forward1s AS BOOLEAN[])), unnest(CAST($mids AS BIGINT[])),
       unnest(CAST($r2s AS VARCHAR[])), unnest(CAST($forward2s AS BOOLEAN[])),
       unnest(CAST($tails AS BIGINT[])), unnest(CAST($hops AS INTEGER[])),
       unnest(CAST($scores AS DOUBLE[])), unnest(CAST($rendered AS VARCHAR[]))
