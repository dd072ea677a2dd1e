-- The aliases of the nodes of the types $types, by node then alias.
SELECT a.node_id, a.alias
FROM node_aliases AS a
JOIN nodes AS n ON n.id = a.node_id
WHERE n.type IN (SELECT unnest(CAST($types AS VARCHAR[])))
ORDER BY a.node_id, a.alias
