INSERT INTO nodes (id, ext_id, type, name, text, attrs)
SELECT id, ext_id, type, name, text, attrs FROM stg_nodes ORDER BY id;
INSERT INTO node_aliases (node_id, alias)
SELECT id, unnest(aliases) FROM stg_nodes WHERE aliases IS NOT NULL;
INSERT INTO edges (src, type, dst)
SELECT src, type, dst FROM stg_edges
