-- Built after the data is in: bulk loads into indexed tables are much slower (they are
-- dropped before a load: load/drop_indexes.postgres.sql).
CREATE UNIQUE INDEX IF NOT EXISTS nodes_id ON nodes (id);
CREATE UNIQUE INDEX IF NOT EXISTS nodes_ext_id ON nodes (ext_id);
CREATE INDEX IF NOT EXISTS nodes_type ON nodes (type, id);
CREATE INDEX IF NOT EXISTS node_aliases_node ON node_aliases (node_id);
CREATE INDEX IF NOT EXISTS nodes_lower_name ON nodes (lower(name));
CREATE INDEX IF NOT EXISTS node_aliases_lower ON node_aliases (lower(alias));
CREATE INDEX IF NOT EXISTS edges_src ON edges (src, type, dst);
CREATE INDEX IF NOT EXISTS edges_dst ON edges (dst, type, src);
CREATE INDEX IF NOT EXISTS node_names_key ON node_names (name_key)
