-- Whether a similarity graph has been built (its summary row exists).
SELECT 1 FROM node_sim_meta WHERE signal = 'any' LIMIT 1
