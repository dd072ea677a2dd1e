-- A rebuild of the similarity graph replaces the old one (inside the rebuild's
-- transaction, so the old graph answers until the new one is complete).
DELETE FROM node_sim;
DELETE FROM node_sim_meta
