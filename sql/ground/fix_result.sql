SELECT id, lvl FROM {{ table }}
{% if max_level %}
WHERE lvl <= $max_level
{% endif %}
ORDER BY lvl, id
