SELECT type, path, value_type, node_count FROM node_attributes ORDER BY type, path
