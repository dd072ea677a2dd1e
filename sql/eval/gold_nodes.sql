-- Which gold ids exist in the SKB, and whether their type may be an answer at all.
SELECT n.ext_id, n.type, t.is_candidate
FROM nodes n
JOIN node_types t ON t.type = n.type
WHERE n.ext_id IN (SELECT unnest(CAST($ext_ids AS VARCHAR[])))
