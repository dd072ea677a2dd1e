-- afr store, schema version 4: placeholder (reserved for a parallel branch; renumbered at merge).
SELECT 1
