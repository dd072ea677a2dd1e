-- Approximate top-$k through an HNSW index (PostgreSQL + pgvector). The inner query is
-- ordered by the distance alone, so the planner can serve it from the index. Through the
-- index over all types it over-fetches $fetch rows so that a type filter applied
-- afterwards still leaves $k; through one type's own partial index (type_code, an integer
-- of afr's own: embed/hnsw_type.postgres.sql) it asks for $k (plus the excluded) alone.
-- The caller falls back to the exact template (vss/topk.sql) when fewer than $k survive.
SET hnsw.ef_search = {{ ef_search }};
SELECT c.node_id, 1 - c.dist AS score
FROM (
    SELECT e.node_id, e.vec <=> CAST(%(q)s AS vector({{ dim }})) AS dist
    FROM emb_{{ variant }} AS e
{% if type_code is not none %}
    WHERE e.type_code = {{ type_code | int }}
{% endif %}
    ORDER BY e.vec <=> CAST(%(q)s AS vector({{ dim }}))
    LIMIT %(fetch)s
) AS c
{% if types %}
JOIN nodes AS n ON n.id = c.node_id AND n.type = ANY(CAST(%(types)s AS TEXT[]))
{% endif %}
{% if exclude %}
WHERE NOT (c.node_id = ANY(CAST(%(exclude)s AS BIGINT[])))
{% endif %}
ORDER BY c.dist, c.node_id
LIMIT %(k)s
