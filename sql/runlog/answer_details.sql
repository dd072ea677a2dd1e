-- Names and types of answer nodes, for display.
SELECT id, ext_id, type, name FROM nodes
WHERE id IN (SELECT unnest(CAST($ids AS BIGINT[])))
