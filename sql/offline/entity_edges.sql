-- Edges among the linked entities themselves: an entity next to another one in the graph
-- most likely qualifies it ("ArgumentError in the argparse module") rather than the answer.
SELECT src, type, dst FROM edges
WHERE src IN (SELECT unnest(CAST($ids AS BIGINT[])))
  AND dst IN (SELECT unnest(CAST($ids AS BIGINT[])))
ORDER BY src, type, dst
