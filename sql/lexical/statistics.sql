-- Document frequencies per (type, term) and per-type document counts and lengths, afresh
-- from the postings: what BM25's IDF and length normalisation read.
DELETE FROM lex_df;
INSERT INTO lex_df (type, term, df)
SELECT type, term, count(*)
FROM lex_postings
GROUP BY type, term;
DELETE FROM lex_stats;
INSERT INTO lex_stats (type, n_docs, total_len)
SELECT type, count(*), sum(len)
FROM lex_docs
GROUP BY type
