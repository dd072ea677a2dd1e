-- Dropped before a bulk load and rebuilt after it (load/indexes.postgres.sql).
DROP INDEX IF EXISTS nodes_id;
DROP INDEX IF EXISTS nodes_ext_id;
DROP INDEX IF EXISTS nodes_type;
DROP INDEX IF EXISTS node_aliases_node;
DROP INDEX IF EXISTS nodes_lower_name;
DROP INDEX IF EXISTS node_aliases_lower;
DROP INDEX IF EXISTS edges_src;
DROP INDEX IF EXISTS edges_dst;
DROP INDEX IF EXISTS node_names_key
