-- Edges whose endpoint types differ from what skb.json declares: a warning, not an error.
WITH decl AS (
    SELECT unnest(CAST($types AS VARCHAR[])) AS type,
           unnest(CAST($sources AS VARCHAR[])) AS source_type,
           unnest(CAST($targets AS VARCHAR[])) AS target_type
)
SELECT e.type, count(*)
FROM stg_edges AS e
JOIN decl AS t ON t.type = e.type
JOIN stg_nodes AS s ON s.id = e.src
JOIN stg_nodes AS d ON d.id = e.dst
WHERE (t.source_type IS NOT NULL AND s.type <> t.source_type)
   OR (t.target_type IS NOT NULL AND d.type <> t.target_type)
GROUP BY e.type
ORDER BY e.type
