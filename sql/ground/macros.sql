{# Building blocks of the grounding SQL. Every set is (id, lvl): a node and the scope
   level from which it is consistent with the part of the query graph below it. #}

{% macro domain(d) -%}
{% if d.kind == "const" %}
SELECT unnest(CAST(${{ d.ids }} AS BIGINT[])) AS id, unnest(CAST(${{ d.lvls }} AS INTEGER[])) AS lvl
{% elif d.kind == "allowed" %}
SELECT unnest(CAST(${{ d.ids }} AS BIGINT[])) AS id, 1 AS lvl
{% elif d.type %}
SELECT n.id, 1 AS lvl FROM nodes AS n WHERE n.type = ${{ d.type }}
{% else %}
SELECT n.id, 1 AS lvl FROM nodes AS n
{% endif %}
{%- endmacro %}

{# One hop from a set along the edges of one triplet: for every node next to the set, the
   lowest level among its neighbours in the set. `source` is a CTE/table name, or None for
   "any node (of source_type)"; `restrict`, if set, is a set the output must lie in. #}
{% macro hop(s) -%}
SELECT id, min(lvl) AS lvl FROM (
{% for way in s.ways %}
{% if not loop.first %}
    UNION ALL
{% endif %}
{% if s.source %}
    SELECT e.{{ way.out }} AS id, x.lvl
    FROM {{ s.source }} AS x
    JOIN edges AS e ON e.{{ way.match }} = x.id{% if s.edge %} AND e.type = ${{ s.edge }}{% endif %}

{% if s.restrict %}
    JOIN {{ s.restrict }} AS r ON r.id = e.{{ way.out }}
{% endif %}
{% elif s.source_type %}
    SELECT e.{{ way.out }} AS id, 1 AS lvl
    FROM edges AS e
{% if s.restrict %}
    JOIN {{ s.restrict }} AS r ON r.id = e.{{ way.out }}
{% endif %}
    JOIN nodes AS x ON x.id = e.{{ way.match }} AND x.type = ${{ s.source_type }}
{% if s.edge %}
    WHERE e.type = ${{ s.edge }}
{% endif %}
{% else %}
    SELECT e.{{ way.out }} AS id, 1 AS lvl
    FROM edges AS e
{% if s.restrict %}
    JOIN {{ s.restrict }} AS r ON r.id = e.{{ way.out }}
{% endif %}
{% if s.edge %}
    WHERE e.type = ${{ s.edge }}
{% endif %}
{% endif %}
{% endfor %}
) AS hop_rows
GROUP BY id
{%- endmacro %}

{# The nodes of `restrict` (with their levels) that have, for every check, at least one
   neighbour (of the check's `source_type`) along its edges: the unconstrained leaves of
   the query graph, as semi-joins. #}
{% macro exists_filter(s) -%}
SELECT r.id, r.lvl FROM {{ s.restrict }} AS r
WHERE
{% for c in s.checks %}
{% if not loop.first %}
    AND
{% endif %}
    (
{% for way in c.ways %}
{% if not loop.first %}
        OR
{% endif %}
        EXISTS (
            SELECT 1 FROM edges AS e
{% if c.source_type %}
            JOIN nodes AS x ON x.id = e.{{ way.match }} AND x.type = ${{ c.source_type }}
{% endif %}
            WHERE e.{{ way.out }} = r.id{% if c.edge %} AND e.type = ${{ c.edge }}{% endif %}

        )
{% endfor %}
    )
{% endfor %}
{%- endmacro %}

{# Several hop results (variable-length relationships): the lowest level per node. #}
{% macro hops_union(u) -%}
SELECT id, min(lvl) AS lvl FROM (
{% for part in u.parts %}
{% if not loop.first %}
    UNION ALL
{% endif %}
    SELECT id, lvl FROM {{ part }}
{% endfor %}
) AS hop_union
GROUP BY id
{%- endmacro %}

{# A symbol's set: its own domain (if any) joined with the best level reachable through
   each of its children; the level is the largest of them (all must hold at once). #}
{% macro combine(c) -%}
{% set first = c.base or c.parts[0] %}
SELECT b.id, {% if c.levels | length == 1 %}{{ c.levels[0] }}{% else %}greatest({{ c.levels | join(", ") }}){% endif %} AS lvl
FROM {{ first }} AS b
{% for p in c.joins %}
JOIN {{ p.name }} AS {{ p.alias }} ON {{ p.alias }}.id = b.id
{% endfor %}
{% if c.type and not c.base %}
JOIN nodes AS n ON n.id = b.id AND n.type = ${{ c.type }}
{% endif %}
{%- endmacro %}
