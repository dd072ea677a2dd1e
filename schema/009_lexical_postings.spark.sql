-- afr store, schema version 9, on Spark: postings carry their document's type and length
-- (see 009_lexical_postings.sql). Spark stores began after version 9, so no postings of an
-- earlier version exist to fill in (and Spark SQL has no UPDATE … FROM).
ALTER TABLE lex_postings ADD COLUMN IF NOT EXISTS type STRING;
ALTER TABLE lex_postings ADD COLUMN IF NOT EXISTS len INT;
DELETE FROM afr_meta WHERE key = 'lexical_statistics_stale';
INSERT INTO afr_meta (key, value) VALUES ('lexical_statistics_stale', 'true')
