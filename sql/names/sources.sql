-- Every node name and alias with its node and type: what the name index folds and keys.
SELECT n.name AS name, n.id AS node_id, n.type AS type FROM nodes AS n WHERE n.name IS NOT NULL
UNION ALL
SELECT a.alias, n.id, n.type FROM node_aliases AS a JOIN nodes AS n ON n.id = a.node_id
