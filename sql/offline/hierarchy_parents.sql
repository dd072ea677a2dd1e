-- The parent relations of a hierarchy: for each relation of a node type to itself, how
-- many nodes point out by it, and how many of those also point out by $backbone (an
-- instance has a class instead of a kind-of parent; a part of a thing has both).
-- Relation names were checked against the SKB schema; values are bound.
SELECT o.type, count(*) AS nodes, count(b.src) AS with_backbone
FROM (
    SELECT DISTINCT src, type FROM edges
    WHERE type IN (SELECT unnest(CAST($relations AS VARCHAR[])))
) AS o
LEFT JOIN (
    SELECT DISTINCT src FROM edges WHERE type = $backbone
) AS b ON b.src = o.src
GROUP BY o.type
ORDER BY o.type
