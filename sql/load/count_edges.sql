SELECT count(*) FROM stg_edges
