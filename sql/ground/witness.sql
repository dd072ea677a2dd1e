-- Provenance of grounded answers along the single-hop triplets ("links") between the
-- target and a constant, all links in one statement: for every answer and link, the
-- constant's candidates it is linked to that were in scope at the answer's level (lowest
-- level, then id first). Values are bound; names were checked.
{% import "ground/macros.sql" as m %}
WITH answers AS (
    SELECT unnest(CAST($ids AS BIGINT[])) AS id, unnest(CAST($lvls AS INTEGER[])) AS lvl
)
{% for link in links %}
, cands{{ loop.index0 }} AS (
    SELECT unnest(CAST(${{ link.cands }} AS BIGINT[])) AS id,
           unnest(CAST(${{ link.cand_lvls }} AS INTEGER[])) AS lvl
)
{% endfor %}
SELECT link, id, other, lvl FROM (
{% for link in links %}
{% set i = loop.index0 %}
{% if adjacency %}
{# Over the adjacency lists (edge_lists): both ways of an undirected link are one scan. #}
{% if i > 0 %}
    UNION ALL
{% endif %}
    SELECT {{ i }} AS link, w.id, c.id AS other, c.lvl
    FROM (
        SELECT a.id, a.lvl, unnest(e.nbrs) AS nbr
        FROM answers AS a
        JOIN edge_lists AS e ON e.node = a.id{{ m.walk_filter(link.walks, "match") }}

    ) AS w
    JOIN cands{{ i }} AS c ON c.id = w.nbr AND c.lvl <= w.lvl
{% else %}
{% for walk in link.walks %}
{% set first_walk = loop.first %}
{% for way in walk.ways %}
{% if i > 0 or not (first_walk and loop.first) %}
    UNION ALL
{% endif %}
    SELECT {{ i }} AS link, a.id, c.id AS other, c.lvl
    FROM answers AS a
    JOIN edges AS e ON e.{{ way.match }} = a.id{% if walk.edge %} AND e.type = ${{ walk.edge }}{% endif %}

    JOIN cands{{ i }} AS c ON c.id = e.{{ way.out }} AND c.lvl <= a.lvl
{% endfor %}
{% endfor %}
{% endif %}
{% endfor %}
) AS links
ORDER BY link, id, lvl, other
