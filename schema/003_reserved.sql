-- afr store, schema version 3: placeholder (reserved for a parallel branch; renumbered at merge).
SELECT 1
