-- afr store, schema version 4: whether each edge type has a direction. NULL (stores
-- loaded before version 4): as the SKB says (afr_meta skb_directed).
ALTER TABLE edge_types ADD COLUMN directed BOOLEAN;
