INSERT INTO edge_types (type, label, description, source_type, target_type, edge_count, directed)
VALUES ($type, $label, $description, $source_type, $target_type, $count, $directed)
