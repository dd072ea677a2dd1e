-- The nodes table (nodes.parquet, or a Delta or Iceberg table, through a view:
-- afr/load/tables.py): one row per node, its columns the keys of a nodes.jsonl record
-- (id, type, name, text, attrs, aliases). Each row becomes the record nodes.jsonl would
-- hold, so the same checks name its problems (rows count from 1, in the scan's order).
-- attrs may be JSON text (text that does not parse stays a string, which the checks
-- refuse), or a struct or map, whose null fields are dropped: a struct has every field
-- on every row, where a JSON record would have left them out.
CREATE OR REPLACE TEMP TABLE stg_raw_nodes AS
SELECT row_number() OVER () AS line,
{% if attrs == "text" %}
       json_merge_patch(to_json(p), json_object('attrs', coalesce(TRY_CAST(p.attrs AS JSON),
                                                                  to_json(p.attrs)))) AS j
{% elif attrs == "nested" %}
       json_merge_patch(json_merge_patch(to_json(p), json_object('attrs', NULL)),
                        json_object('attrs', json_merge_patch('{}', to_json(p.attrs)))) AS j
{% else %}
       to_json(p) AS j
{% endif %}
FROM {{ view }} AS p
