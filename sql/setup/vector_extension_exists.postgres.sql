-- pgvector's version and the schema it was installed in (its type and operators live there).
SELECT e.extversion, n.nspname
FROM pg_extension AS e
JOIN pg_namespace AS n ON n.oid = e.extnamespace
WHERE e.extname = 'vector'
