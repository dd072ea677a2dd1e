-- The type of each of the given nodes (a batch of vectors about to be written).
SELECT n.id, n.type FROM nodes AS n
WHERE n.id IN (SELECT unnest(CAST($ids AS BIGINT[])))
