-- KAR K5: one connecting path for each kept (start, end) pair: the edge itself for a
-- first hop, else start —r1— mid —r2— end through the middle node of lowest id (then
-- the relation names). forward1/forward2: whether each edge is stored in walking order.
WITH pairs AS (
    SELECT unnest(CAST($starts AS BIGINT[])) AS start, unnest(CAST($ends AS BIGINT[])) AS nb
),
out_steps AS (
    SELECT p.start, p.nb, e.dst AS via, e.type, TRUE AS forward
    FROM pairs AS p JOIN edges AS e ON e.src = p.start
    UNION ALL
    SELECT p.start, p.nb, e.src AS via, e.type, FALSE AS forward
    FROM pairs AS p JOIN edges AS e ON e.dst = p.start
),
in_steps AS (
    SELECT p.start, p.nb, e.src AS via, e.type, TRUE AS forward
    FROM pairs AS p JOIN edges AS e ON e.dst = p.nb
    UNION ALL
    SELECT p.start, p.nb, e.dst AS via, e.type, FALSE AS forward
    FROM pairs AS p JOIN edges AS e ON e.src = p.nb
),
paths AS (
    SELECT start, nb, 1 AS hop, type AS r1, forward AS forward1, CAST(NULL AS BIGINT) AS mid,
           CAST(NULL AS VARCHAR) AS r2, CAST(NULL AS BOOLEAN) AS forward2
    FROM out_steps WHERE via = nb
    UNION ALL
    SELECT o.start, o.nb, 2 AS hop, o.type AS r1, o.forward AS forward1, o.via AS mid,
           i.type AS r2, i.forward AS forward2
    FROM out_steps AS o
    JOIN in_steps AS i ON i.start = o.start AND i.nb = o.nb AND i.via = o.via
    WHERE o.via <> o.start AND o.via <> o.nb
),
ranked AS (
    SELECT *, row_number() OVER (PARTITION BY start, nb
                                 ORDER BY hop, mid, r1, forward1, r2, forward2) AS rn
    FROM paths
)
SELECT start, nb, hop, r1, forward1, mid, r2, forward2
FROM ranked WHERE rn = 1
ORDER BY start, nb
