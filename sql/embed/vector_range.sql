-- The vectors of one type's nodes from $first to $last (ids), by id: one slice of a
-- search matrix, so that building it never holds more than a slice as Python objects.
SELECT e.vec
FROM emb_{{ variant }} AS e
JOIN nodes AS n ON n.id = e.node_id
WHERE n.type = $type AND e.node_id BETWEEN $first AND $last
ORDER BY e.node_id
