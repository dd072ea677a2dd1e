-- The table a user names for an SKB's nodes or edges (afr load --nodes-table
-- lake.skb_nodes), read in place through a view that the staging SQL reads like a file's
-- (afr/load/tables.py). The name was checked against the store's catalog first.
CREATE OR REPLACE TEMP VIEW {{ view }} AS SELECT * FROM {{ table }}
