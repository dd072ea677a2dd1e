-- Second hops along a question's path (node)-[$type1]-(mid)-[$type2]-(far): for each of
-- the given nodes, the neighbours `mid` (through $type1) that reach a node of $first (the
-- nodes a named constant grounded to, best-ranked first) through $type2, with those far
-- nodes' names (at most $cap, best-ranked first) and count. $dir1 / $dir2: 'out' (the nearer node is the edge's source), 'in',
-- or 'any'; dir: the second hop's, as seen from mid. Only the hops that reach the constant: a description states the fact its
-- query relies on, not every neighbour of every neighbour.
WITH focus AS (
    SELECT unnest(CAST($ids AS BIGINT[])) AS id
),
firsts AS (
    SELECT unnest(CAST($first AS BIGINT[])) AS id, unnest(CAST($ranks AS BIGINT[])) AS rank
),
hop1 AS (
    SELECT e.src AS node, e.dst AS mid FROM edges AS e
    WHERE e.type = $type1 AND $dir1 <> 'in' AND e.src IN (SELECT id FROM focus)
    UNION
    SELECT e.dst AS node, e.src AS mid FROM edges AS e
    WHERE e.type = $type1 AND $dir1 <> 'out' AND e.dst IN (SELECT id FROM focus)
),
hop2 AS (
    SELECT e.src AS mid, 'out' AS dir, e.dst AS far, f.rank FROM edges AS e
    JOIN firsts AS f ON f.id = e.dst
    WHERE e.type = $type2 AND $dir2 <> 'in'
    UNION
    SELECT e.dst AS mid, 'in' AS dir, e.src AS far, f.rank FROM edges AS e
    JOIN firsts AS f ON f.id = e.src
    WHERE e.type = $type2 AND $dir2 <> 'out'
)
SELECT h1.node, coalesce(m.name, m.ext_id) AS mid_name, h2.dir,
       (array_agg(coalesce(f.name, f.ext_id) ORDER BY h2.rank, h2.far))[1:$cap]
           AS names,
       count(*) AS total
FROM hop1 AS h1
JOIN hop2 AS h2 ON h2.mid = h1.mid
JOIN nodes AS m ON m.id = h1.mid
JOIN nodes AS f ON f.id = h2.far
WHERE h2.far <> h1.node
GROUP BY h1.node, h1.mid, m.name, m.ext_id, h2.dir
ORDER BY h1.node, m.name NULLS LAST, h1.mid, h2.dir
