-- The parent relations of a hierarchy: for each relation of a node type to itself, how
-- many nodes point out by it, how many of those also point out by the backbone (the
-- relation most nodes point out by; ties to the first name), and whether it is the
-- backbone. An instance has a class instead of a kind-of parent; a part of a thing has
-- both. Relation names were checked against the SKB schema; values are bound.
WITH parents AS (
    SELECT DISTINCT src, type FROM edges
    WHERE type IN (SELECT unnest(CAST($relations AS VARCHAR[])))
), counts AS (
    SELECT type, count(*) AS nodes FROM parents GROUP BY type
), backbone AS (
    SELECT type FROM counts ORDER BY nodes DESC, type LIMIT 1
), backbone_nodes AS (
    SELECT p.src FROM parents AS p JOIN backbone AS b ON b.type = p.type
)
SELECT c.type, c.nodes, count(n.src) AS with_backbone, max(b.type) IS NOT NULL AS is_backbone
FROM counts AS c
JOIN parents AS p ON p.type = c.type
LEFT JOIN backbone_nodes AS n ON n.src = p.src
LEFT JOIN backbone AS b ON b.type = c.type
GROUP BY c.type, c.nodes
ORDER BY c.type
