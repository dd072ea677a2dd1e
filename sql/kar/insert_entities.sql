INSERT INTO run_kar_entities (run_id, entity, source, entity_text, parsed_type, node_id, score)
SELECT $run_id, unnest(CAST($entities AS INTEGER[])), unnest(CAST($sources AS VARCHAR[])),
       unnest(CAST($texts AS VARCHAR[])), unnest(CAST($types AS VARCHAR[])),
       unnest(CAST($node_ids AS BIGINT[])), unnest(CAST($scores AS DOUBLE[]))
