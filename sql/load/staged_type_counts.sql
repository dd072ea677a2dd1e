-- Node and edge counts per type, from the staging tables (cheaper than scanning the store).
SELECT 'node' AS kind, type, count(*) FROM stg_nodes GROUP BY type
UNION ALL
SELECT 'edge' AS kind, type, count(*) FROM stg_edges GROUP BY type
