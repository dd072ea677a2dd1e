-- afr store, schema version 3: placeholder (the lead renumbers parallel migrations at merge).
SELECT 1
