DELETE FROM afr_meta WHERE key = $key
