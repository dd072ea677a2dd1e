-- Attribute paths per node type (top level and one nested level), with the JSON value
-- type most nodes have there. Keys with dots or quotes are left out: no path could name them.
WITH top AS (
    SELECT type, attrs, unnest(json_keys(attrs)) AS key
    FROM stg_nodes
    WHERE json_type(attrs) = 'OBJECT'
),
level1 AS (
    SELECT type, key AS path, json_extract(attrs, '$."' || key || '"') AS v
    FROM top
    WHERE strpos(key, '.') = 0 AND strpos(key, '"') = 0
),
nested AS (
    SELECT type, path, v, unnest(json_keys(v)) AS key
    FROM level1
    WHERE json_type(v) = 'OBJECT'
),
level2 AS (
    SELECT type, path || '.' || key AS path, json_extract(v, '$."' || key || '"') AS v
    FROM nested
    WHERE strpos(key, '.') = 0 AND strpos(key, '"') = 0
),
typed AS (
    SELECT type, path,
           CASE
               WHEN json_type(v) IN ('BIGINT', 'UBIGINT', 'DOUBLE') THEN 'number'
               WHEN json_type(v) = 'BOOLEAN' THEN 'boolean'
               WHEN json_type(v) = 'ARRAY' THEN 'list'
               WHEN json_type(v) = 'OBJECT' THEN 'object'
               WHEN json_type(v) = 'VARCHAR'
                    AND regexp_matches(json_extract_string(v, '$'), '^\d{4}-\d{2}-\d{2}') THEN 'date'
               WHEN json_type(v) = 'VARCHAR' THEN 'string'
               ELSE 'null'
           END AS value_type
    FROM (SELECT * FROM level1 UNION ALL SELECT * FROM level2)
)
SELECT type, path, mode(value_type) AS value_type, count(*) AS node_count
FROM typed
WHERE value_type <> 'null'
GROUP BY type, path
ORDER BY type, path
