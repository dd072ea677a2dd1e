-- One run's symbol candidates (the first $per_symbol of each), with their nodes.
SELECT s.symbol, s.rank, s.level, s.score, s.node_id, n.ext_id, n.name, n.type
FROM run_symbols AS s
LEFT JOIN nodes AS n ON n.id = s.node_id
WHERE s.run_id = $run_id AND s.rank <= $per_symbol
ORDER BY s.symbol, s.rank
