-- 1-hop relations of the given nodes (see relations.sql): Spark has no ordered aggregate
-- or array slice by [a:b], so each group's neighbours are collected as (unnamed?, name,
-- id, shown text) and sorted: named ones by name then id, unnamed ones by id.
WITH focus AS (
    SELECT explode(CAST(:ids AS ARRAY<BIGINT>)) AS id
),
adj AS (
    SELECT e.src AS node, e.type, 'out' AS dir, e.dst AS other
    FROM edges AS e WHERE e.src IN (SELECT id FROM focus)
    UNION ALL
    SELECT e.dst AS node, e.type, 'in' AS dir, e.src AS other
    FROM edges AS e WHERE e.dst IN (SELECT id FROM focus)
)
SELECT a.node, a.type, a.dir,
       slice(transform(array_sort(collect_list(named_struct(
                 'unnamed', n.name IS NULL, 'name', n.name, 'other', a.other,
                 'shown', coalesce(n.name, n.ext_id)))), x -> x.shown), 1, :cap) AS names,
       count(*) AS total, min(a.other) AS first_other, min(n.type) AS other_type
FROM adj AS a
JOIN nodes AS n ON n.id = a.other
GROUP BY a.node, a.type, a.dir
ORDER BY a.node, a.type, a.dir
