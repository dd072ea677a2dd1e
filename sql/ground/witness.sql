-- Provenance of grounded answers along one triplet between the target and a constant: for
-- every answer, the constant's candidates it is linked to that were in scope at the
-- answer's level (lowest level, then id first). Values are bound; names were checked.
WITH answers AS (
    SELECT unnest(CAST($ids AS BIGINT[])) AS id, unnest(CAST($lvls AS INTEGER[])) AS lvl
),
cands AS (
    SELECT unnest(CAST($cands AS BIGINT[])) AS id, unnest(CAST($cand_lvls AS INTEGER[])) AS lvl
)
SELECT id, other, lvl FROM (
{% for way in ways %}
{% if not loop.first %}
    UNION ALL
{% endif %}
    SELECT a.id, c.id AS other, c.lvl
    FROM answers AS a
    JOIN edges AS e ON e.{{ way.match }} = a.id{% if edge %} AND e.type = $edge{% endif %}

    JOIN cands AS c ON c.id = e.{{ way.out }} AND c.lvl <= a.lvl
{% endfor %}
) AS links
ORDER BY id, lvl, other
