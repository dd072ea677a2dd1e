-- One run's answers in their final order, with their nodes and provenance.
SELECT a.final_rank, a.node_id, n.ext_id, n.name, n.type, a.source, a.level, a.vss_score,
       a.rerank_position, a.provenance
FROM run_answers AS a
LEFT JOIN nodes AS n ON n.id = a.node_id
WHERE a.run_id = $run_id
ORDER BY a.final_rank
