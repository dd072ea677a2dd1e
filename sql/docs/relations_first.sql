-- 1-hop relations of the given nodes, grouped by (relation, direction), at most $cap
-- neighbour names per group plus the group's full size — as relations.sql, but the
-- neighbours in $first (the nodes a question's named constants grounded to, best-ranked
-- first) come first in that order, so a capped list still names them.
-- Then names in name order, unnamed neighbours (shown by external id) last, ties by id.
WITH focus AS (
    SELECT unnest(CAST($ids AS BIGINT[])) AS id
),
firsts AS (
    SELECT unnest(CAST($first AS BIGINT[])) AS id, unnest(CAST($ranks AS BIGINT[])) AS rank
),
adj AS (
    SELECT e.src AS node, e.type, 'out' AS dir, e.dst AS other
    FROM edges AS e WHERE e.src IN (SELECT id FROM focus)
    UNION ALL
    SELECT e.dst AS node, e.type, 'in' AS dir, e.src AS other
    FROM edges AS e WHERE e.dst IN (SELECT id FROM focus)
)
SELECT a.node, a.type, a.dir,
       (array_agg(coalesce(n.name, n.ext_id)
                  ORDER BY f.rank NULLS LAST, n.name NULLS LAST, a.other))[1:$cap] AS names,
       count(*) AS total, min(a.other) AS first_other
FROM adj AS a
JOIN nodes AS n ON n.id = a.other
LEFT JOIN firsts AS f ON f.id = a.other
GROUP BY a.node, a.type, a.dir
ORDER BY a.node, a.type, a.dir
