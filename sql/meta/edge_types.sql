SELECT type, label, description, source_type, target_type FROM edge_types ORDER BY type
