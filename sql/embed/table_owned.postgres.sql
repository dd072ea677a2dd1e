-- Whether this session's role may build indexes on an embedding table: CREATE INDEX needs
-- the table's owner (or a member of the owning role).
SELECT pg_has_role(current_user, c.relowner, 'USAGE') AS owned
FROM pg_class AS c
WHERE c.relnamespace = CAST(current_schema() AS regnamespace) AND c.relname = %(table)s
