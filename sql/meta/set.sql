DELETE FROM afr_meta WHERE key = $key;
INSERT INTO afr_meta (key, value) VALUES ($key, $value)
