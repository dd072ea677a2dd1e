-- Edges pointing outside the node range, and edge type indexes without a name.
SELECT count(*) FILTER (WHERE src < 0 OR src >= $n OR dst < 0 OR dst >= $n),
       min(src || '->' || dst) FILTER (WHERE src < 0 OR src >= $n OR dst < 0 OR dst >= $n),
       count(*) FILTER (WHERE t NOT IN (SELECT t FROM stark_edge_names)),
       min(t) FILTER (WHERE t NOT IN (SELECT t FROM stark_edge_names))
FROM stark_edges
