-- STaRK nodes, registered from Python arrays, in the staging shape of an SKB directory.
CREATE OR REPLACE TEMP TABLE stg_nodes AS
SELECT id + 1 AS line, id, ext_id, type, name, text, CAST(attrs AS JSON) AS attrs,
       CAST(NULL AS VARCHAR[]) AS aliases
FROM stark_nodes
