-- Read nodes.jsonl(.gz) as one JSON object per record; malformed records become NULL so
-- the checks below can name them instead of failing on the first one.
CREATE OR REPLACE TEMP TABLE stg_raw_nodes AS
SELECT ordinality AS line, json AS j
FROM read_ndjson_objects($path, ignore_errors = true) WITH ORDINALITY
