SELECT value FROM afr_meta WHERE key = $key
