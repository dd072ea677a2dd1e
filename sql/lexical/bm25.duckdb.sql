-- BM25 of the query terms $terms (distinct) over the documents of the node types $types
-- (all types when not restricted), optionally scoring only the nodes $ids. The statistics
-- (IDF, average length) are always those of the whole type(s): a candidate set is scored,
-- not re-indexed. Lucene's variant, as bm25s computes it:
--   idf(t)  = ln(1 + (N - df + 0.5) / (df + 0.5))
--   score   = sum over terms of idf(t) * tf / (tf + k1 * (1 - b + b * len / avglen))
-- over the query terms whose idf is at least $min_idf (0: all of them, as bm25s).
-- DuckDB's form: the same scores as the portable bm25.sql, from the postings alone.
WITH q AS (
    SELECT DISTINCT unnest(CAST($terms AS VARCHAR[])) AS term
), st AS (
    SELECT CAST(sum(n_docs) AS DOUBLE) AS n,
           CAST(sum(total_len) AS DOUBLE) / CAST(sum(n_docs) AS DOUBLE) AS avglen
    FROM lex_stats
{% if types %}
    WHERE type IN (SELECT unnest(CAST($types AS VARCHAR[])))
{% endif %}
), hits AS (
    -- The postings of the query terms in the type(s) searched. DuckDB reads only the row
    -- groups holding them (the postings are in term order: order.duckdb.sql), while
    -- lex_df, in no order and with an index DuckDB does not use for a join, was read
    -- whole by every query (10-40 ms of a 265K-node SKB's 25-50 ms BM25). A term's df is
    -- its number of postings here: what lex_df holds (statistics.sql counts them so).
    -- PostgreSQL keeps reading lex_df through its index (the portable bm25.sql).
    SELECT p.term, p.node_id, p.tf, p.len
    FROM lex_postings AS p
    WHERE p.term IN (SELECT term FROM q)
{% if types %}
      AND p.type IN (SELECT unnest(CAST($types AS VARCHAR[])))
{% endif %}
), idf AS (
    SELECT h.term,
           ln(1.0 + (st.n - CAST(count(*) AS DOUBLE) + 0.5)
                    / (CAST(count(*) AS DOUBLE) + 0.5)) AS idf
    FROM hits AS h
    CROSS JOIN st
    GROUP BY h.term, st.n
), kept AS (
    -- A term held by (nearly) every document searched — the type's own name in its
    -- documents' first line, a key every record has — tells them apart by almost nothing
    -- yet makes every document a scored row: terms with idf below $min_idf are left out.
    SELECT term, idf FROM idf WHERE idf >= CAST($min_idf AS DOUBLE)
), scored AS (
    -- Rounded to 1e-9 (floor of the scaled score: the same function on every store): sums
    -- of floats differ in their last bits between databases, and the ranking and the cut
    -- at $k must not.
    -- A posting carries its document's type and length: no join with lex_docs.
    SELECT p.node_id,
           floor(sum(idf.idf * CAST(p.tf AS DOUBLE)
                     / (CAST(p.tf AS DOUBLE) + CAST($k1 AS DOUBLE)
                        * (1.0 - CAST($b AS DOUBLE)
                           + CAST($b AS DOUBLE) * CAST(p.len AS DOUBLE) / st.avglen)))
                 * 1e9 + 0.5) / 1e9 AS score
    FROM hits AS p
    JOIN kept AS idf ON idf.term = p.term
    CROSS JOIN st
{% if ids %}
    WHERE p.node_id IN (SELECT unnest(CAST($ids AS BIGINT[])))
{% endif %}
    GROUP BY p.node_id
)
SELECT node_id, score FROM scored
{% if limit %}
-- The best $k, and (with $also) every node of $also wherever it ranks: one statement
-- serves both the top of a type and a candidate set's scores.
-- (A top-N sort: a window numbering every scored node sorted all of them, which for a
-- term in every document of the type is the whole type.)
WHERE node_id IN (
    SELECT node_id FROM scored ORDER BY score DESC, node_id LIMIT $k
)
{% if also %}
   OR node_id IN (SELECT unnest(CAST($also AS BIGINT[])))
{% endif %}
{% endif %}
ORDER BY score DESC, node_id
