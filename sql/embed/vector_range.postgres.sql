-- The vectors of one type's nodes from $first to $last (ids), by id: one slice of a
-- search matrix. As real[]: plain float lists, the same float32 values as stored.
SELECT CAST(e.vec AS REAL[]) AS vec
FROM emb_{{ variant }} AS e
JOIN nodes AS n ON n.id = e.node_id
WHERE n.type = %(type)s AND e.node_id BETWEEN %(first)s AND %(last)s
ORDER BY e.node_id
