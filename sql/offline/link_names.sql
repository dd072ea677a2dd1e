-- Offline entity linking: nodes whose name or alias equals a word n-gram of the question.
WITH grams AS (
    SELECT unnest(CAST($grams AS VARCHAR[])) AS g
)
SELECT n.id, n.type, lower(n.name) AS matched, n.name
FROM nodes AS n
WHERE lower(n.name) IN (SELECT g FROM grams)
UNION ALL
SELECT n.id, n.type, lower(a.alias) AS matched, n.name
FROM node_aliases AS a
JOIN nodes AS n ON n.id = a.node_id
WHERE lower(a.alias) IN (SELECT g FROM grams)
