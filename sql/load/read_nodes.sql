-- Read nodes.jsonl(.gz) as one JSON object per record; malformed records become NULL so
-- the checks below can name them instead of failing on the first one. A record longer
-- than $max_bytes stops the read (afr.load.stage names it).
CREATE OR REPLACE TEMP TABLE stg_raw_nodes AS
SELECT ordinality AS line, json AS j
FROM read_ndjson_objects($path, ignore_errors = true, maximum_object_size = $max_bytes)
    WITH ORDINALITY
