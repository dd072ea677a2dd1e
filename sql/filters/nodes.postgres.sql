-- Nodes (of a type) whose attributes satisfy every condition. PostgreSQL JSON accessors.
{% import "filters/common.j2" as f %}
{% macro keys(c) %}{% for k in c.path %}, '{{ k | replace("'", "''") }}'{% endfor %}{% endmacro %}
{% macro text(c) %}jsonb_extract_path_text(n.attrs{{ keys(c) }}){% endmacro %}
{% macro number(c) %}(CASE WHEN jsonb_typeof(jsonb_extract_path(n.attrs{{ keys(c) }})) = 'number' THEN CAST(jsonb_extract_path_text(n.attrs{{ keys(c) }}) AS DOUBLE PRECISION) END){% endmacro %}
{% macro elements(c) %}jsonb_array_elements_text(CASE WHEN jsonb_typeof(jsonb_extract_path(n.attrs{{ keys(c) }})) = 'array' THEN jsonb_extract_path(n.attrs{{ keys(c) }}) END) AS el(v){% endmacro %}
{% macro p(name) %}%({{ name }})s{% endmacro %}
{% macro regex(x, y) %}{{ x }} ~ {{ y }}{% endmacro %}
{% set d = {"text": text, "number": number, "elements": elements, "p": p, "regex": regex} %}
SELECT n.id
FROM nodes AS n
WHERE TRUE
{% if node_type %}
  AND n.type = %(node_type)s
{% endif %}
{{ f.where(conditions, d) }}
ORDER BY n.id
LIMIT %(limit)s
