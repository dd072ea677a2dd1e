-- afr store, schema version 4: placeholder (the lead renumbers parallel migrations at merge).
SELECT 1
