SELECT count(*), coalesce(sum(len(aliases)), 0) FROM stg_nodes
