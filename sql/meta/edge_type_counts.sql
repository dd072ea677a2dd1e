SELECT type, label, source_type, target_type, edge_count FROM edge_types
ORDER BY edge_count DESC, type
