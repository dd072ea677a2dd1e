-- afr store, schema version 5: the lexical (BM25) index, built by `afr index`.
-- Tokens come from the relation-free node documents (`doc`), tokenised in Python
-- (afr/lexical/tokens.py); BM25 itself is SQL (sql/lexical/bm25.sql), the same on every store.

-- One row per (term, node): how often the term occurs in the node's document.
CREATE TABLE IF NOT EXISTS lex_postings (
    term    TEXT NOT NULL,
    node_id BIGINT NOT NULL,
    tf      INTEGER NOT NULL
);
CREATE INDEX IF NOT EXISTS lex_postings_term ON lex_postings (term);

-- One row per indexed node: its type and document length in tokens. A node without a row
-- here is what an incremental `afr index` does next.
CREATE TABLE IF NOT EXISTS lex_docs (
    node_id BIGINT PRIMARY KEY,
    type    TEXT NOT NULL,
    len     INTEGER NOT NULL
);

-- Document frequencies per node type and term, and per type the number of documents and
-- their total length: BM25 over one type uses that type's statistics (global IDF).
-- Recomputed from lex_postings at the end of every `afr index` that changed it.
CREATE TABLE IF NOT EXISTS lex_df (
    type TEXT NOT NULL,
    term TEXT NOT NULL,
    df   BIGINT NOT NULL
);
CREATE INDEX IF NOT EXISTS lex_df_term ON lex_df (term);

CREATE TABLE IF NOT EXISTS lex_stats (
    type      TEXT NOT NULL,
    n_docs    BIGINT NOT NULL,
    total_len BIGINT NOT NULL
);
