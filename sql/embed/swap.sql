-- A finished rebuild takes the place of the old vectors (inside the caller's transaction).
DROP TABLE IF EXISTS emb_{{ variant }};
ALTER TABLE emb_{{ shadow }} RENAME TO emb_{{ variant }}
