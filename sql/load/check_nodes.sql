-- Every problem in nodes.jsonl as (problem, record, detail); the loader reports counts
-- and the first examples of each.
WITH checks AS (
    SELECT 'malformed JSON' AS problem, line, '' AS detail
    FROM stg_raw_nodes WHERE j IS NULL
    UNION ALL
    SELECT 'not a JSON object', line, left(CAST(j AS VARCHAR), 60)
    FROM stg_raw_nodes WHERE j IS NOT NULL AND json_type(j) <> 'OBJECT'
    UNION ALL
    SELECT 'missing or invalid id', line, left(CAST(j AS VARCHAR), 60)
    FROM stg_raw_nodes
    WHERE json_type(j) = 'OBJECT'
      AND coalesce(json_type(json_extract(j, '$.id')) NOT IN ('BIGINT', 'UBIGINT', 'VARCHAR'), true)
    UNION ALL
    SELECT 'missing type', line, coalesce(json_extract_string(j, '$.id'), '')
    FROM stg_raw_nodes
    WHERE json_type(j) = 'OBJECT' AND coalesce(json_type(json_extract(j, '$.type')) <> 'VARCHAR', true)
    UNION ALL
    SELECT 'unknown node type', line, (json_extract_string(j, '$.id')) || ': ' || (json_extract_string(j, '$.type'))
    FROM stg_raw_nodes
    WHERE json_type(j) = 'OBJECT' AND json_type(json_extract(j, '$.type')) = 'VARCHAR'
      AND NOT list_contains(CAST($node_types AS VARCHAR[]), json_extract_string(j, '$.type'))
    UNION ALL
    SELECT 'name or text is not a string', line, coalesce(json_extract_string(j, '$.id'), '')
    FROM stg_raw_nodes
    WHERE json_type(j) = 'OBJECT'
      AND (coalesce(json_type(json_extract(j, '$.name')), 'NULL') NOT IN ('VARCHAR', 'NULL')
           OR coalesce(json_type(json_extract(j, '$.text')), 'NULL') NOT IN ('VARCHAR', 'NULL'))
    UNION ALL
    SELECT 'attrs is not an object', line, coalesce(json_extract_string(j, '$.id'), '')
    FROM stg_raw_nodes
    WHERE json_type(j) = 'OBJECT' AND coalesce(json_type(json_extract(j, '$.attrs')), 'NULL') NOT IN ('OBJECT', 'NULL')
    UNION ALL
    SELECT 'aliases is not a list of strings', line, coalesce(json_extract_string(j, '$.id'), '')
    FROM stg_raw_nodes
    WHERE json_type(j) = 'OBJECT'
      AND (coalesce(json_type(json_extract(j, '$.aliases')), 'NULL') NOT IN ('ARRAY', 'NULL')
           OR (json_type(json_extract(j, '$.aliases')) = 'ARRAY'
               AND EXISTS (SELECT 1 FROM unnest(json_extract(j, '$.aliases[*]')) AS u(x)
                           WHERE json_type(u.x) <> 'VARCHAR')))
    UNION ALL
    SELECT 'record longer than ' || ($max_bytes // 1048576) || ' MB', line,
           coalesce(json_extract_string(j, '$.id'), '') || ': '
           || round(strlen(CAST(j AS VARCHAR)) / 1048576, 1) || ' MB'
    FROM stg_raw_nodes
    WHERE strlen(CAST(j AS VARCHAR)) > $max_bytes
    UNION ALL
    SELECT 'duplicate id', line, json_extract_string(j, '$.id')
    FROM (
        SELECT line, j, count(*) OVER (PARTITION BY json_extract_string(j, '$.id')) AS n
        FROM stg_raw_nodes WHERE json_type(j) = 'OBJECT' AND json_extract_string(j, '$.id') IS NOT NULL
    ) WHERE n > 1
)
SELECT problem, count(*) AS n, list(line ORDER BY line)[1:5] AS lines,
       list(detail ORDER BY line)[1:5] AS details
FROM checks
GROUP BY problem
ORDER BY min(line)
