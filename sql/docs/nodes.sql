-- The nodes whose documents are being built, with their aliases.
SELECT n.id, n.type, n.name, n.text, n.attrs,
       (SELECT list(a.alias ORDER BY a.alias) FROM node_aliases AS a WHERE a.node_id = n.id)
FROM nodes AS n
WHERE n.id IN (SELECT unnest(CAST($ids AS BIGINT[])))
ORDER BY n.id
