-- Which node types each edge type connects, from the staging tables: the grounding leaves
-- out a node-type check that an edge type's endpoints already imply (afr.ground.compile).
SELECT DISTINCT e.type, s.type AS src_type, d.type AS dst_type
FROM stg_edges AS e
JOIN stg_nodes AS s ON s.id = e.src
JOIN stg_nodes AS d ON d.id = e.dst
ORDER BY 1, 2, 3
