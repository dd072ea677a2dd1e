-- afr store, schema version 6: the name index. Every node name and alias, folded
-- (afr.text.fold_name: trimmed, whitespace collapsed, accents removed, case-folded),
-- with its node and the node's type: an exact-name lookup is a point query on the key
-- instead of a lower() scan over nodes and aliases. Filled by `afr load`; a store loaded
-- before this version has no rows here until it is loaded again (the lookup then scans,
-- see sql/symbols/exact_names_scan.sql), which afr_meta's 'names_index' tells apart.
CREATE TABLE IF NOT EXISTS node_names (
    name_key TEXT NOT NULL,
    node_id  BIGINT NOT NULL,
    type     TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS node_names_key ON node_names (name_key)
