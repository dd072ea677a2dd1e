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
   "any node (of source_type)"; `restrict`, if set, is a set the output must lie in.
   `walks`: per edge type the triplet may take (`edge` None: any), the ways to walk it. #}
{% macro hop(s) -%}
SELECT id, min(lvl) AS lvl FROM (
{% if s.adjacency %}
{{ adjacency_hop(s) }}
{% else %}
{% for walk in s.walks %}
{% set first_walk = loop.first %}
{% for way in walk.ways %}
{% if not (first_walk and loop.first) %}
    UNION ALL
{% endif %}
{% if s.source %}
    SELECT e.{{ way.out }} AS id, x.lvl
    FROM {{ s.source }} AS x
    JOIN edges AS e ON e.{{ way.match }} = x.id{% if walk.edge %} AND e.type = ${{ walk.edge }}{% endif %}

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
{% if walk.edge %}
    WHERE e.type = ${{ walk.edge }}
{% endif %}
{% else %}
    SELECT e.{{ way.out }} AS id, 1 AS lvl
    FROM edges AS e
{% if s.restrict %}
    JOIN {{ s.restrict }} AS r ON r.id = e.{{ way.out }}
{% endif %}
{% if walk.edge %}
    WHERE e.type = ${{ walk.edge }}
{% endif %}
{% endif %}
{% endfor %}
{% endfor %}
{% endif %}
) AS hop_rows
GROUP BY id
{%- endmacro %}

{# The same hop over the adjacency lists (edge_lists, on stores that have them): one row
   per node and edge type instead of one per edge. When the triplet is walked both ways
   the two sides are one scan (no side filter): the same rows as the two ways' UNION ALL. #}
{% macro adjacency_hop(s) -%}
{% if s.source %}
    SELECT y.id, y.lvl FROM (
        SELECT unnest(e.nbrs) AS id, x.lvl
        FROM {{ s.source }} AS x
        JOIN edge_lists AS e ON e.node = x.id{{ walk_filter(s.walks, "match") }}

    ) AS y
{% if s.restrict %}
    JOIN {{ s.restrict }} AS r ON r.id = y.id
{% endif %}
{% else %}
{# Any node with a neighbour (of source_type) along the edges: read from the node's own
   lists, on the other side. #}
    SELECT e.node AS id, 1 AS lvl
    FROM edge_lists AS e
{% if s.restrict %}
    JOIN {{ s.restrict }} AS r ON r.id = e.node
{% endif %}
    WHERE TRUE{% if s.source_type %} AND e.nbr_type = ${{ s.source_type }}{% endif %}{{ walk_filter(s.walks, "out") }}

{% endif %}
{%- endmacro %}

{# " AND e.side = '…'" for a one-way walk, keyed on the node at `end` of the ways ("match":
   the node walked from; "out": the node reached); nothing when both sides are walked. #}
{% macro side_filter(ways, end) -%}
{% if ways | length == 1 %} AND e.side = '{{ ways[0][end] }}'{% endif %}
{%- endmacro %}

{# The rows of edge_lists (or edge_presence) a triplet's walks take: " AND" the side and
   type of its one walk, or of any of its walks (one per type of `[:a|b]`). #}
{% macro walk_filter(walks, end) -%}
{% if walks | length == 1 %}{{ side_filter(walks[0].ways, end) }}{% if walks[0].edge %} AND e.type = ${{ walks[0].edge }}{% endif %}
{% else %} AND ({% for walk in walks %}{% if not loop.first %} OR {% endif %}(e.type = ${{ walk.edge }}{{ side_filter(walk.ways, end) }}){% endfor %})
{%- endif %}
{%- endmacro %}

{# The nodes of `restrict` (with their levels) that have, for every check, at least one
   neighbour (of the check's `source_type`) along its edges: the unconstrained leaves of
   the query graph, as semi-joins. A probe of the adjacency lists (edge_lists) or of the
   presence record (edge_presence: the same rows without the neighbours), where the store
   has them, else of the edges. #}
{% macro exists_filter(s) -%}
SELECT r.id, r.lvl FROM {{ s.restrict }} AS r
WHERE
{% for c in s.checks %}
{% if not loop.first %}
    AND
{% endif %}
    (
{% if s.adjacency or s.presence %}
        EXISTS (
            SELECT 1 FROM {{ "edge_lists" if s.adjacency else "edge_presence" }} AS e
            WHERE e.node = r.id{% if c.source_type %} AND e.nbr_type = ${{ c.source_type }}{% endif %}{{ walk_filter(c.walks, "out") }}

        )
{% else %}
{% for walk in c.walks %}
{% set first_walk = loop.first %}
{% for way in walk.ways %}
{% if not (first_walk and loop.first) %}
        OR
{% endif %}
        EXISTS (
            SELECT 1 FROM edges AS e
{% if c.source_type %}
            JOIN nodes AS x ON x.id = e.{{ way.match }} AND x.type = ${{ c.source_type }}
{% endif %}
            WHERE e.{{ way.out }} = r.id{% if walk.edge %} AND e.type = ${{ walk.edge }}{% endif %}

        )
{% endfor %}
{% endfor %}
{% endif %}
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
