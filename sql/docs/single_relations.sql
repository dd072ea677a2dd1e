-- The (relation, direction) pairs no node has more than one edge of: 'out' when every
-- source has at most one edge of the type, 'in' when every target has. Through these a
-- node's neighbour is a 1-1 or n-1 hop whatever the node (the paper's second hops).
WITH outs AS (
    SELECT type, count(*) AS c FROM edges GROUP BY type, src
),
ins AS (
    SELECT type, count(*) AS c FROM edges GROUP BY type, dst
)
SELECT type, 'out' AS dir FROM outs GROUP BY type HAVING max(c) = 1
UNION ALL
SELECT type, 'in' AS dir FROM ins GROUP BY type HAVING max(c) = 1
ORDER BY 1, 2
