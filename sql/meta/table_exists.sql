SELECT 1 FROM information_schema.tables
WHERE table_name = $table AND table_schema = current_schema()
