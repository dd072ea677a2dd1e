-- The postings in term order, after a build added to them: a BM25 query then reads only
-- the row groups holding its terms (DuckDB skips the others by their min/max). Run inside
-- the build's transaction.
CREATE TEMP TABLE afr_postings_by_term AS
SELECT term, node_id, tf, type, len FROM lex_postings ORDER BY term, node_id;
DELETE FROM lex_postings;
INSERT INTO lex_postings (term, node_id, tf, type, len)
SELECT term, node_id, tf, type, len FROM afr_postings_by_term;
DROP TABLE afr_postings_by_term
