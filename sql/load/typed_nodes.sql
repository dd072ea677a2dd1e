CREATE OR REPLACE TEMP TABLE stg_nodes AS
SELECT line,
{% if int_ids %}
       CAST(json_extract_string(j, '$.id') AS BIGINT) AS id,
{% else %}
       line - 1 AS id,
{% endif %}
       json_extract_string(j, '$.id') AS ext_id,
       json_extract_string(j, '$.type') AS type,
       json_extract_string(j, '$.name') AS name,
       json_extract_string(j, '$.text') AS text,
       CASE WHEN json_type(json_extract(j, '$.attrs')) = 'OBJECT' THEN json_extract(j, '$.attrs') END AS attrs,
       CASE WHEN json_type(json_extract(j, '$.aliases')) = 'ARRAY'
            THEN CAST(json_extract_string(j, '$.aliases[*]') AS VARCHAR[]) END AS aliases
FROM stg_raw_nodes;
DROP TABLE stg_raw_nodes
