-- True when every node id is a JSON integer: then the store keeps them as its ids.
SELECT coalesce(bool_and(json_type(json_extract(j, '$.id')) IN ('BIGINT', 'UBIGINT')), false)
FROM stg_raw_nodes
WHERE j IS NOT NULL
