-- The asked-for class: how many nodes point at the nodes a question's asked-for noun
-- names, per relation ("which cheeses …": most nodes point at `cheese` as a kind of it).
SELECT type, count(*) AS members
FROM edges
WHERE dst IN (SELECT unnest(CAST($ids AS BIGINT[])))
GROUP BY type
ORDER BY members DESC, type
