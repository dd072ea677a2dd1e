INSERT INTO node_attributes (type, path, value_type, node_count)
VALUES ($type, $path, $value_type, $node_count)
