-- afr store, schema version 5: placeholder (reserved for a parallel branch; renumbered at merge).
SELECT 1
