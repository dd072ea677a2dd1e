-- A staged table of a load (afr.load.stage) in the shape of the Spark store's table.
{% if table == "nodes" %}
SELECT id, ext_id, type, name, text, CAST(attrs AS VARCHAR) AS attrs FROM stg_nodes ORDER BY id
{% elif table == "node_aliases" %}
SELECT id AS node_id, unnest(aliases) AS alias FROM stg_nodes WHERE aliases IS NOT NULL
{% else %}
SELECT src, type, dst FROM stg_edges
{% endif %}
