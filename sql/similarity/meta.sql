-- The similarity graph's build record (summary row first).
SELECT signal, src_type, dst_type, threshold, k_cand, n_cand, n_kept, embedder, built_at,
       percentile, n_nodes, deg_mean, deg_median, deg_max
FROM node_sim_meta
ORDER BY signal <> 'any', signal, src_type, dst_type
