-- Nodes whose name or an alias equals one of the search strings (case-insensitive):
-- they lead a constant's candidate list, ahead of the vector-similarity ranking.
WITH wanted AS (
    SELECT lower(trim(s)) AS s FROM (SELECT unnest(CAST($names AS VARCHAR[])) AS s)
),
hits AS (
    SELECT n.id, n.type FROM nodes AS n WHERE lower(n.name) IN (SELECT s FROM wanted)
    UNION
    SELECT n.id, n.type
    FROM node_aliases AS a JOIN nodes AS n ON n.id = a.node_id
    WHERE lower(a.alias) IN (SELECT s FROM wanted)
)
SELECT id FROM hits
WHERE TRUE
{% if node_type %}
  AND type = $node_type
{% endif %}
{% if allowed %}
  AND id IN (SELECT unnest(CAST($allowed AS BIGINT[])))
{% endif %}
ORDER BY id
LIMIT $limit
