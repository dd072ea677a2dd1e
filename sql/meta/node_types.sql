SELECT type, label, description, is_candidate FROM node_types ORDER BY type
