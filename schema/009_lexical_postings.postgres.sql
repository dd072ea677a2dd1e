-- afr store, schema version 9 (PostgreSQL): postings carry their document's type and
-- length, so BM25 (sql/lexical/bm25.sql) reads the postings of the query terms alone,
-- without joining lex_docs: from a covering index, without visiting the table.
ALTER TABLE lex_postings ADD COLUMN IF NOT EXISTS type TEXT;
ALTER TABLE lex_postings ADD COLUMN IF NOT EXISTS len INTEGER;
UPDATE lex_postings SET type = d.type, len = d.len
FROM lex_docs AS d
WHERE d.node_id = lex_postings.node_id;
DROP INDEX IF EXISTS lex_postings_term;
CREATE INDEX IF NOT EXISTS lex_postings_term ON lex_postings (term, type)
    INCLUDE (node_id, tf, len);
