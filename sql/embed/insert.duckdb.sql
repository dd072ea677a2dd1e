INSERT INTO emb_{{ variant }} (node_id, vec)
SELECT node_id, CAST(list(x ORDER BY pos) AS FLOAT[{{ dim }}])
FROM afr_vec_batch
GROUP BY node_id
