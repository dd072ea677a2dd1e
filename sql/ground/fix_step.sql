-- One refinement: keep the nodes of {{ table }} with a neighbour in the other set, at the
-- larger of their own level and the best neighbour's.
{% import "ground/macros.sql" as m %}
CREATE TEMP TABLE {{ table }}_next AS
WITH
{% for cte in ctes %}
{{ cte.name }} AS (
{% if cte.kind == "hop" %}
{{ m.hop(cte) }}
{% else %}
{{ m.hops_union(cte) }}
{% endif %}
),
{% endfor %}
best AS (SELECT id, lvl FROM {{ reach }})
SELECT t.id, greatest(t.lvl, best.lvl) AS lvl
FROM {{ table }} AS t
JOIN best ON best.id = t.id;
DROP TABLE {{ table }};
ALTER TABLE {{ table }}_next RENAME TO {{ table }}
