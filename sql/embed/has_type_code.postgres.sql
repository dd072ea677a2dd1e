-- Whether an embedding table has the type_code column (tables made before it have none,
-- and are searched through the index over all types only).
SELECT 1 FROM information_schema.columns
WHERE table_schema = current_schema() AND table_name = %(table)s AND column_name = 'type_code'
