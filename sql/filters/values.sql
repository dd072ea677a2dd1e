-- A number attribute of the given nodes ($ids), by its path: what ranks the answers of a
-- comparison that grounded none ("more than 500 senses"). DuckDB JSON accessors: the
-- portable template (Spark's is transpiled from it; PostgreSQL has values.postgres.sql).
SELECT n.id,
       TRY_CAST(json_extract_string(n.attrs, '${% for k in path %}."{{ k | replace("'", "''") | replace('"', '\\"') }}"{% endfor %}') AS DOUBLE) AS value
FROM nodes AS n
WHERE n.id IN (SELECT unnest(CAST($ids AS BIGINT[])))
ORDER BY n.id
