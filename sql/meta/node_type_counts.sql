SELECT type, label, node_count, is_candidate FROM node_types ORDER BY node_count DESC, type
