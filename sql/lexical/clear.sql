-- The whole lexical index, emptied before a rebuild (`afr index --rebuild`): postings,
-- documents and statistics alike.
DELETE FROM lex_postings;
DELETE FROM lex_docs;
DELETE FROM lex_df;
DELETE FROM lex_stats
