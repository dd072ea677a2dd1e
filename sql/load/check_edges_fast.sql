-- One cheap pass: are there any problems at all? (Details only when there are.)
SELECT count(*) FILTER (WHERE type IS NULL OR src IS NULL OR dst IS NULL)
       + (SELECT count(*) FROM (SELECT src, type, dst FROM stg_edges
                                GROUP BY src, type, dst HAVING count(*) > 1))
FROM stg_edges
