-- SAGE's expansion: every 1-hop neighbour of the seeds $seeds in the similarity graph
-- (node_sim, never `edges`), except the seeds themselves, optionally only of the node
-- types $types. Per neighbour: its best similarity to any seed, and the seed and signal
-- of that best link (ties: the smaller seed id, then the signal name).
WITH links AS (
    SELECT s.dst AS node_id, s.src AS via_seed, s.signal, s.score,
           row_number() OVER (PARTITION BY s.dst
                              ORDER BY s.score DESC, s.src, s.signal) AS best
    FROM node_sim AS s
{% if types %}
    JOIN nodes AS n ON n.id = s.dst
{% endif %}
    WHERE s.src IN (SELECT unnest(CAST($seeds AS BIGINT[])))
      AND s.dst NOT IN (SELECT unnest(CAST($seeds AS BIGINT[])))
{% if types %}
      AND n.type IN (SELECT unnest(CAST($types AS VARCHAR[])))
{% endif %}
)
SELECT node_id, via_seed, signal, CAST(score AS DOUBLE) AS sim
FROM links
WHERE best = 1
ORDER BY sim DESC, node_id
