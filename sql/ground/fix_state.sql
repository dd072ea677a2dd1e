SELECT count(*), coalesce(sum(lvl), 0) FROM {{ table }}
