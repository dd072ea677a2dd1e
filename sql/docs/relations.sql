-- 1-hop relations of the given nodes, grouped by (relation, direction), at most $cap
-- neighbour names per group plus the group's full size (so hubs cannot explode a document).
WITH focus AS (
    SELECT unnest(CAST($ids AS BIGINT[])) AS id
),
adj AS (
    SELECT e.src AS node, e.type, 'out' AS dir, e.dst AS other
    FROM edges AS e WHERE e.src IN (SELECT id FROM focus)
    UNION ALL
    SELECT e.dst AS node, e.type, 'in' AS dir, e.src AS other
    FROM edges AS e WHERE e.dst IN (SELECT id FROM focus)
),
named AS (
    SELECT a.node, a.type, a.dir, a.other, coalesce(n.name, n.ext_id) AS name, n.type AS other_type,
           row_number() OVER (PARTITION BY a.node, a.type, a.dir ORDER BY n.name, a.other) AS rn,
           count(*) OVER (PARTITION BY a.node, a.type, a.dir) AS total
    FROM adj AS a
    JOIN nodes AS n ON n.id = a.other
)
SELECT node, type, dir, list(name ORDER BY rn) AS names, max(total) AS total,
       min(other) AS first_other, min(other_type) AS other_type
FROM named
WHERE rn <= $cap
GROUP BY node, type, dir
ORDER BY node, type, dir
