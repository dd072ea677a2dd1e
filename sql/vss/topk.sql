-- Top-$k nodes by cosine similarity to the query vector $q, optionally restricted to node
-- types and/or to an explicit id set. Scores are similarities (1 = same direction).
SELECT e.node_id, 1 - AFR_COSINE_DISTANCE(e.vec, CAST($q AS FLOAT[{{ dim }}])) AS score
FROM emb_{{ variant }} AS e
{% if types %}
JOIN nodes AS n ON n.id = e.node_id
{% endif %}
WHERE TRUE
{% if types %}
  AND n.type IN (SELECT unnest(CAST($types AS VARCHAR[])))
{% endif %}
{% if ids %}
  AND e.node_id IN (SELECT unnest(CAST($ids AS BIGINT[])))
{% endif %}
{% if exclude %}
  AND e.node_id NOT IN (SELECT unnest(CAST($exclude AS BIGINT[])))
{% endif %}
ORDER BY AFR_COSINE_DISTANCE(e.vec, CAST($q AS FLOAT[{{ dim }}])), e.node_id
LIMIT $k
