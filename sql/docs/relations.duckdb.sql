-- 1-hop relations of the given nodes, grouped by (relation, direction), at most $cap
-- neighbour names per group plus the group's full size (so hubs cannot explode a document).
-- The same rows as relations.sql, with DuckDB's top-N aggregate (min_by with a count)
-- in place of a window that numbers and sorts every neighbour: 2-3x faster on hub-heavy
-- graphs. Names in name order, unnamed neighbours last; first_other is the group's
-- smallest neighbour id.
WITH focus AS (
    SELECT unnest(CAST($ids AS BIGINT[])) AS id
),
adj AS (
    SELECT e.src AS node, e.type, 'out' AS dir, e.dst AS other
    FROM edges AS e WHERE e.src IN (SELECT id FROM focus)
    UNION ALL
    SELECT e.dst AS node, e.type, 'in' AS dir, e.src AS other
    FROM edges AS e WHERE e.dst IN (SELECT id FROM focus)
)
SELECT a.node, a.type, a.dir,
       list_concat(
           -- named neighbours by name (among equal names the text is the same whichever
           -- comes first), then unnamed ones by id, shown by external id
           coalesce(min_by(n.name, n.name, $cap) FILTER (WHERE n.name IS NOT NULL), []),
           coalesce(min_by(n.ext_id, a.other, $cap) FILTER (WHERE n.name IS NULL), [])
       )[1:$cap] AS names,
       count(*) AS total, min(a.other) AS first_other, min(n.type) AS other_type
FROM adj AS a
JOIN nodes AS n ON n.id = a.other
GROUP BY a.node, a.type, a.dir
ORDER BY a.node, a.type, a.dir
