-- KAR's document structures: the most frequent attribute paths of each node type.
SELECT type, path FROM (
    SELECT type, path,
           row_number() OVER (PARTITION BY type ORDER BY node_count DESC, path) AS rn
    FROM node_attributes
) AS ranked
WHERE rn <= $per_type
ORDER BY type, rn
