DELETE FROM afr_meta WHERE key IN (SELECT unnest(CAST($keys AS VARCHAR[])))
