-- afr store, schema version 9: postings carry their document's type and length, so BM25
-- (sql/lexical/bm25.sql) reads the postings of the query terms alone, without joining
-- lex_docs, and DuckDB keeps them ordered by term (sql/lexical/order.duckdb.sql) so that
-- a query reads only the row groups of its terms. DuckDB answers with scans, not with the
-- index on term, which only slowed its inserts (PostgreSQL's native migration keeps a
-- covering index instead).
DROP INDEX IF EXISTS lex_postings_term;
ALTER TABLE lex_postings ADD COLUMN IF NOT EXISTS type TEXT;
ALTER TABLE lex_postings ADD COLUMN IF NOT EXISTS len INTEGER;
UPDATE lex_postings SET type = d.type, len = d.len
FROM lex_docs AS d
WHERE d.node_id = lex_postings.node_id;
-- Marked stale, the index is put in term order by the next `afr index` (or `afr embed`,
-- which runs it): lexical/order.duckdb.sql. Until then BM25 reads every row group.
DELETE FROM afr_meta WHERE key = 'lexical_statistics_stale';
INSERT INTO afr_meta (key, value) VALUES ('lexical_statistics_stale', 'true')
