-- Whether a table exists, by binding it and reading none of its rows (an error says it
-- does not): on a cold connection this is ~8 ms cheaper than meta/table_exists.sql, as the
-- information schema loads the catalog entry of every table first.
SELECT 1 FROM query_table($table) LIMIT 0
