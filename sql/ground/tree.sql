-- Grounding of an acyclic query graph in one statement: a bottom-up semi-join pass rooted
-- at the target, carrying each node's scope level (MIN over neighbours, MAX over children).
{% import "ground/macros.sql" as m %}
WITH
{% for cte in ctes %}
{{ cte.name }} AS (
{% if cte.kind in ("const", "allowed", "typed", "any") %}
{{ m.domain(cte) }}
{% elif cte.kind == "hop" %}
{{ m.hop(cte) }}
{% elif cte.kind == "exists" %}
{{ m.exists_filter(cte) }}
{% elif cte.kind == "union" %}
{{ m.hops_union(cte) }}
{% elif cte.kind == "combine" %}
{{ m.combine(cte) }}
{% endif %}
){% if not loop.last %},{% endif %}

{% endfor %}
SELECT id, lvl FROM {{ result }}
{% if max_level %}
WHERE lvl <= $max_level
{% endif %}
ORDER BY lvl, id
