INSERT INTO edge_types (type, label, description, source_type, target_type, edge_count)
VALUES ($type, $label, $description, $source_type, $target_type, $count)
