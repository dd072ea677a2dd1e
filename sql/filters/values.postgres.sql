-- A number attribute of the given nodes, by its path (values.sql). PostgreSQL JSON
-- accessors: a value that is not a JSON number is NULL.
SELECT n.id,
       CASE WHEN jsonb_typeof(jsonb_extract_path(n.attrs{% for k in path %}, '{{ k | replace("'", "''") }}'{% endfor %})) = 'number'
            THEN CAST(jsonb_extract_path_text(n.attrs{% for k in path %}, '{{ k | replace("'", "''") }}'{% endfor %}) AS DOUBLE PRECISION) END AS value
FROM nodes AS n
WHERE n.id IN (SELECT unnest(CAST(%(ids)s AS BIGINT[])))
ORDER BY n.id
