INSERT INTO node_types (type, label, description, is_candidate, node_count)
VALUES ($type, $label, $description, $is_candidate, $count)
