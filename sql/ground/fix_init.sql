-- Cyclic query graphs: each symbol's set lives in a temp table, refined to a fixed point.
{% import "ground/macros.sql" as m %}
CREATE TEMP TABLE {{ table }} AS
{% if domain.kind == "const" or domain.kind == "allowed" %}
SELECT d.id, d.lvl FROM ({{ m.domain(domain) }}) AS d
{% if domain.type %}
JOIN nodes AS n ON n.id = d.id AND n.type = ${{ domain.type }}
{% endif %}
{% else %}
{{ m.domain(domain) }}
{% endif %}
