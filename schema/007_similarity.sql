-- afr store, schema version 7: the similarity graph SAGE expands over (`afr index
-- --similarity`, afr/vectors/similarity.py). Kept apart from `edges` on purpose: grounding,
-- provenance and the reranker's node descriptions walk `edges` only, so a similarity link
-- can never satisfy a relation of the query by accident.

-- One row per kept (pair, signal), stored in both directions so that a 1-hop expansion is
-- a lookup on src. `signal` names the embedding the pair passed on (`doc`: the node
-- documents' vectors; `name`: name plus aliases); a pair kept by both signals has a row
-- for each (OR across signals). `score` is that signal's cosine similarity.
CREATE TABLE IF NOT EXISTS node_sim (
    src    BIGINT NOT NULL,
    dst    BIGINT NOT NULL,
    signal TEXT NOT NULL,
    score  REAL NOT NULL
);
CREATE INDEX IF NOT EXISTS node_sim_src ON node_sim (src);

-- How the graph was built: per signal and (unordered) type pair, the threshold (the
-- percentile of its candidate-pair scores) and how many candidate pairs there were and
-- how many were kept; one row with signal 'any' describes the graph as a whole (OR of
-- the signals: distinct pairs kept, and the edges per eligible node: n_nodes nodes,
-- mean, median and max degree).
CREATE TABLE IF NOT EXISTS node_sim_meta (
    signal     TEXT NOT NULL,
    src_type   TEXT,
    dst_type   TEXT,
    threshold  REAL,
    k_cand     INTEGER,
    n_cand     BIGINT,
    n_kept     BIGINT,
    embedder   TEXT,
    built_at   TIMESTAMP,
    percentile DOUBLE,
    n_nodes    BIGINT,
    deg_mean   DOUBLE,
    deg_median DOUBLE,
    deg_max    BIGINT
)
