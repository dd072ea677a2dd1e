-- Nodes (of a type) whose attributes satisfy every condition. DuckDB JSON accessors: the
-- portable template (Spark's is transpiled from it; PostgreSQL has nodes.postgres.sql).
{% import "filters/common.j2" as f %}
{% macro jpath(c) %}'${% for k in c.path %}."{{ k | replace("'", "''") | replace('"', '\\"') }}"{% endfor %}'{% endmacro %}
{% macro text(c) %}json_extract_string(n.attrs, {{ jpath(c) }}){% endmacro %}
{% macro number(c) %}TRY_CAST(json_extract_string(n.attrs, {{ jpath(c) }}) AS DOUBLE){% endmacro %}
{% macro elements(c) %}unnest(CAST(json_extract_string(n.attrs, {{ jpath(c)[:-1] }}[*]') AS VARCHAR[])) AS el(v){% endmacro %}
{% macro p(name) %}${{ name }}{% endmacro %}
{% macro regex(x, y) %}regexp_matches({{ x }}, {{ y }}){% endmacro %}
{% set d = {"text": text, "number": number, "elements": elements, "p": p, "regex": regex} %}
SELECT n.id
FROM nodes AS n
WHERE TRUE
{% if node_type %}
  AND n.type = $node_type
{% endif %}
{{ f.where(conditions, d) }}
ORDER BY n.id
LIMIT $limit
