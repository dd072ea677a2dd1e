-- A few example names per node type, for the Cypher prompt.
SELECT type, name FROM (
    SELECT type, name, row_number() OVER (PARTITION BY type ORDER BY id) AS rn
    FROM nodes WHERE name IS NOT NULL AND length(name) BETWEEN 2 AND 60
) WHERE rn <= $per_type
ORDER BY type, rn
