-- Per node type: how many nodes, and the median length of their text in characters
-- (`afr index --similarity` makes the types with rich text eligible).
SELECT type, count(*) AS nodes,
       quantile_cont(CAST(length(coalesce(text, '')) AS DOUBLE), 0.5) AS median_chars
FROM nodes
GROUP BY type
ORDER BY type
