-- The name of every node of the types $types, ordered as the search matrices are
-- (type, then id): the `name` signal embeds it with the node's aliases.
SELECT id, type, coalesce(name, '') AS name
FROM nodes
WHERE type IN (SELECT unnest(CAST($types AS VARCHAR[])))
ORDER BY type, id
