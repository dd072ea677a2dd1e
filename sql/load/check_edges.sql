WITH checks AS (
    SELECT 'unknown edge type' AS problem, line, coalesce(type_written, '(empty)') AS detail
    FROM stg_edges WHERE type IS NULL
    UNION ALL
    SELECT 'source node not in ' || $nodes_file, line, coalesce(src_ext, '(empty)')
    FROM stg_edges WHERE src IS NULL
    UNION ALL
    SELECT 'target node not in ' || $nodes_file, line, coalesce(dst_ext, '(empty)')
    FROM stg_edges WHERE dst IS NULL
    UNION ALL
    SELECT 'duplicate edge', e.line, s.ext_id || ' -' || e.type_written || '-> ' || d.ext_id
    FROM (
        SELECT line, src, coalesce(type_written, type) AS type_written, dst,
               row_number() OVER (PARTITION BY src, type, dst ORDER BY line) AS k
        FROM stg_edges WHERE src IS NOT NULL AND dst IS NOT NULL AND type IS NOT NULL
    ) AS e
    JOIN stg_nodes AS s ON s.id = e.src
    JOIN stg_nodes AS d ON d.id = e.dst
    WHERE k > 1
)
SELECT problem, count(*) AS n, list(line ORDER BY line)[1:5] AS lines,
       list(detail ORDER BY line)[1:5] AS details
FROM checks
GROUP BY problem
ORDER BY min(line)
