-- For `afr init --print-sql`: the schema version afr checks (Store.init records it too).
DELETE FROM afr_meta WHERE key = 'schema_version';
INSERT INTO afr_meta (key, value) VALUES ('schema_version', '{{ version }}')
