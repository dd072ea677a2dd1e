-- Edge types; stores older than schema version 3 have no per-type direction (NULL: the
-- SKB's flag).
SELECT type, label, description, source_type, target_type,
{% if with_direction %}
       directed
{% else %}
       CAST(NULL AS BOOLEAN) AS directed
{% endif %}
FROM edge_types ORDER BY type
