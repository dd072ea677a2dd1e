DELETE FROM node_names
