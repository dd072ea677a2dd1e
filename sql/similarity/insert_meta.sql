-- How the similarity graph was built: one row per signal and type pair, plus the
-- summary row (signal 'any'); columns as in schema/007_similarity.sql.
INSERT INTO node_sim_meta (signal, src_type, dst_type, threshold, k_cand, n_cand, n_kept,
                           embedder, built_at, percentile, n_nodes, deg_mean, deg_median,
                           deg_max)
SELECT unnest(CAST($signals AS VARCHAR[])), unnest(CAST($src_types AS VARCHAR[])),
       unnest(CAST($dst_types AS VARCHAR[])), unnest(CAST($thresholds AS DOUBLE[])),
       CAST($k_cand AS INTEGER), unnest(CAST($n_cand AS BIGINT[])),
       unnest(CAST($n_kept AS BIGINT[])), CAST($embedder AS VARCHAR), CURRENT_TIMESTAMP,
       CAST($percentile AS DOUBLE), unnest(CAST($n_nodes AS BIGINT[])),
       unnest(CAST($deg_mean AS DOUBLE[])), unnest(CAST($deg_median AS DOUBLE[])),
       unnest(CAST($deg_max AS BIGINT[]))
