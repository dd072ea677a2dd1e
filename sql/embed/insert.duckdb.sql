INSERT INTO emb_{{ variant }} (node_id, vec)
SELECT node_id, CAST(vec AS FLOAT[{{ dim }}])
FROM afr_vec_batch
