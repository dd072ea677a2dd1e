-- An even sample of the given types' nodes, at most $n of them (spread over the id order:
-- a row is taken where (row - 1) · n / count passes a whole number): the nodes whose
-- descriptions estimate a rerank prompt's size before an eval asks anything.
WITH typed AS (
    SELECT id, row_number() OVER (ORDER BY id) AS r, count(*) OVER () AS c
    FROM nodes
    WHERE type IN (SELECT unnest(CAST($types AS VARCHAR[])))
)
SELECT id FROM typed
WHERE floor(CAST(r - 1 AS DOUBLE PRECISION) * $n / c)
    > floor(CAST(r - 2 AS DOUBLE PRECISION) * $n / c)
ORDER BY id
LIMIT $n
