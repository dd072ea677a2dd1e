UPDATE node_types SET node_count = (SELECT count(*) FROM nodes AS n WHERE n.type = node_types.type);
UPDATE edge_types SET edge_count = (SELECT count(*) FROM edges AS e WHERE e.type = edge_types.type)
