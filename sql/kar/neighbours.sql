-- KAR K3: every node within {{ hops }} hop(s) of each start node, edges walked both ways,
-- the start itself left out, each with its shortest hop. Hub guard: when a start's
-- middle nodes would lead to more than $max_neighbours second hops (counted as edges),
-- its second hop skips middles with more than $max_mid_degree edges (all first hops stay);
-- "guarded" marks the starts where that happened.
WITH starts AS (
    SELECT DISTINCT unnest(CAST($starts AS BIGINT[])) AS start
),
first_steps AS (
    SELECT s.start, e.dst AS nb FROM starts AS s JOIN edges AS e ON e.src = s.start
    UNION ALL
    SELECT s.start, e.src AS nb FROM starts AS s JOIN edges AS e ON e.dst = s.start
),
h1 AS (
    SELECT DISTINCT start, nb FROM first_steps WHERE nb <> start
),
{% if hops >= 2 %}
mids AS (
    SELECT DISTINCT nb AS mid FROM h1
),
mid_degree AS (
    SELECT mid, count(*) AS degree FROM (
        SELECT m.mid FROM mids AS m JOIN edges AS e ON e.src = m.mid
        UNION ALL
        SELECT m.mid FROM mids AS m JOIN edges AS e ON e.dst = m.mid
    ) AS ends
    GROUP BY mid
),
reach AS (
    SELECT h.start, sum(d.degree) AS total
    FROM h1 AS h JOIN mid_degree AS d ON d.mid = h.nb
    GROUP BY h.start
),
walk AS (
    SELECT h.start, h.nb AS mid
    FROM h1 AS h
    JOIN mid_degree AS d ON d.mid = h.nb
    JOIN reach AS r ON r.start = h.start
    WHERE r.total <= $max_neighbours OR d.degree <= $max_mid_degree
),
second_steps AS (
    SELECT w.start, e.dst AS nb FROM walk AS w JOIN edges AS e ON e.src = w.mid
    UNION ALL
    SELECT w.start, e.src AS nb FROM walk AS w JOIN edges AS e ON e.dst = w.mid
),
{% endif %}
reached AS (
    SELECT start, nb, 1 AS hop FROM h1
{% if hops >= 2 %}
    UNION ALL
    SELECT start, nb, 2 AS hop FROM second_steps WHERE nb <> start
{% endif %}
),
nearest AS (
    SELECT start, nb, min(hop) AS hop FROM reached GROUP BY start, nb
)
SELECT n.start, n.nb, n.hop,
{% if hops >= 2 %}
       coalesce(r.total > $max_neighbours, FALSE) AS guarded
{% else %}
       FALSE AS guarded
{% endif %}
FROM nearest AS n
{% if hops >= 2 %}
LEFT JOIN reach AS r ON r.start = n.start
{% endif %}
ORDER BY n.start, n.hop, n.nb
