-- Staged tables as CSV files, streamed into PostgreSQL with COPY (see PostgresStore).
COPY (
{% if table == "nodes" %}
    SELECT id, ext_id, type, name, text, CAST(attrs AS VARCHAR) FROM stg_nodes ORDER BY id
{% elif table == "node_aliases" %}
    SELECT id, unnest(aliases) FROM stg_nodes WHERE aliases IS NOT NULL
{% else %}
    SELECT src, type, dst FROM stg_edges
{% endif %}
) TO '{{ path }}' (FORMAT csv, HEADER false)
