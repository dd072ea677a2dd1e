-- Indexed nodes, nodes in all, postings and distinct terms (`afr index` reports them).
SELECT (SELECT count(*) FROM lex_docs) AS indexed,
       (SELECT count(*) FROM nodes) AS nodes,
       (SELECT count(*) FROM lex_postings) AS postings,
       (SELECT count(DISTINCT term) FROM lex_df) AS terms
