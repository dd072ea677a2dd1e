WITH checks AS (
    SELECT 'unknown edge type' AS problem, line, coalesce(type_written, '(empty)') AS detail
    FROM stg_edges WHERE type IS NULL
    UNION ALL
    SELECT 'source node not in nodes.jsonl', line, coalesce(src_ext, '(empty)')
    FROM stg_edges WHERE src IS NULL
    UNION ALL
    SELECT 'target node not in nodes.jsonl', line, coalesce(dst_ext, '(empty)')
    FROM stg_edges WHERE dst IS NULL
    UNION ALL
    SELECT 'duplicate edge', line, src_ext || ' -' || type_written || '-> ' || dst_ext
    FROM (
        SELECT line, src_ext, type_written, dst_ext,
               row_number() OVER (PARTITION BY src, type, dst ORDER BY line) AS k
        FROM stg_edges WHERE src IS NOT NULL AND dst IS NOT NULL AND type IS NOT NULL
    ) WHERE k > 1
)
SELECT problem, count(*) AS n, list(line ORDER BY line)[1:5] AS lines,
       list(detail ORDER BY line)[1:5] AS details
FROM checks
GROUP BY problem
ORDER BY min(line)
