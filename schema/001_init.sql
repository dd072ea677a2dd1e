-- afr store, schema version 1. Written in DuckDB's dialect; transpiled for PostgreSQL.
-- One store holds one SKB. Node ids are BIGINT inside the store; ext_id keeps the SKB's own id.

CREATE TABLE IF NOT EXISTS afr_meta (
    key   TEXT PRIMARY KEY,
    value TEXT
);

CREATE TABLE IF NOT EXISTS node_types (
    type         TEXT PRIMARY KEY,
    label        TEXT NOT NULL,      -- wording shown to the LLM
    description  TEXT,
    is_candidate BOOLEAN NOT NULL,   -- may nodes of this type be answers?
    node_count   BIGINT NOT NULL DEFAULT 0
);

CREATE TABLE IF NOT EXISTS edge_types (
    type        TEXT PRIMARY KEY,
    label       TEXT NOT NULL,       -- relation wording shown to the LLM, mapped back on parse
    description TEXT,
    source_type TEXT,
    target_type TEXT,
    edge_count  BIGINT NOT NULL DEFAULT 0
);

CREATE TABLE IF NOT EXISTS nodes (
    id     BIGINT NOT NULL,          -- unique; indexed after bulk loads (see sql/load/indexes.sql)
    ext_id TEXT NOT NULL,
    type   TEXT NOT NULL,
    name   TEXT,
    text   TEXT,
    attrs  JSON
);

CREATE TABLE IF NOT EXISTS node_aliases (
    node_id BIGINT NOT NULL,
    alias   TEXT NOT NULL
);

-- Attribute catalogue: which attribute paths exist per node type, with their JSON value
-- type. Attribute names an LLM writes must be found here before they reach a template.
CREATE TABLE IF NOT EXISTS node_attributes (
    type       TEXT NOT NULL,
    path       TEXT NOT NULL,         -- dotted: "year", "details.indication"
    value_type TEXT NOT NULL,         -- number | string | date | boolean | list | object
    node_count BIGINT NOT NULL
);

-- Edges as stored in the SKB. For an undirected SKB grounding reads them both ways.
CREATE TABLE IF NOT EXISTS edges (
    src  BIGINT NOT NULL,
    type TEXT NOT NULL,
    dst  BIGINT NOT NULL
);

-- Which embedder made the vectors of each document variant (doc, doc_rel).
-- The vectors live in emb_doc / emb_doc_rel, created by `afr embed` once the dimension is known.
CREATE TABLE IF NOT EXISTS embedding_models (
    variant    TEXT PRIMARY KEY,
    model_id   TEXT NOT NULL,
    dim        INTEGER NOT NULL,
    node_count BIGINT NOT NULL DEFAULT 0,
    updated_at TIMESTAMP DEFAULT current_timestamp
);

CREATE TABLE IF NOT EXISTS query_embeddings (
    model_id  TEXT NOT NULL,
    text_hash TEXT NOT NULL,
    text      TEXT NOT NULL,
    vec       FLOAT[] NOT NULL,
    PRIMARY KEY (model_id, text_hash)
);

-- Run log: every `afr ask` (and every question of `afr eval`) leaves its traces here.
CREATE TABLE IF NOT EXISTS runs (
    run_id      TEXT PRIMARY KEY,
    created_at  TIMESTAMP DEFAULT current_timestamp,
    question    TEXT NOT NULL,
    mode        TEXT NOT NULL,        -- llm | offline
    config      JSON,
    target_type TEXT,
    cypher      TEXT,
    query_graph JSON,
    timings     JSON,                 -- seconds per step
    llm_calls   INTEGER DEFAULT 0,
    llm_tokens  BIGINT DEFAULT 0,
    status      TEXT NOT NULL,        -- ok | degraded | failed
    warnings    JSON,
    eval_id     TEXT,
    question_id TEXT
);

CREATE TABLE IF NOT EXISTS run_symbols (
    run_id  TEXT NOT NULL,
    symbol  TEXT NOT NULL,
    node_id BIGINT NOT NULL,
    rank    INTEGER NOT NULL,         -- 1 = most similar to the symbol's search string
    level   INTEGER NOT NULL,         -- scope-expansion level at which it enters
    score   DOUBLE
);

CREATE TABLE IF NOT EXISTS run_answers (
    run_id          TEXT NOT NULL,
    node_id         BIGINT NOT NULL,
    source          TEXT NOT NULL,    -- graph | vss | both
    level           INTEGER,          -- scope level at which grounding found it
    vss_score       DOUBLE,
    rerank_position INTEGER,
    final_rank      INTEGER NOT NULL,
    provenance      JSON              -- grounded triplets that led to it
);

CREATE TABLE IF NOT EXISTS llm_calls (
    key               TEXT NOT NULL,  -- hash of model, messages and parameters: the cache key
    created_at        TIMESTAMP DEFAULT current_timestamp,
    run_id            TEXT,
    step              TEXT,
    model             TEXT,
    request           JSON,
    response          TEXT,
    reasoning         TEXT,
    finish_reason     TEXT,
    prompt_tokens     INTEGER,
    completion_tokens INTEGER,
    latency_s         DOUBLE,
    error             TEXT
);

CREATE TABLE IF NOT EXISTS eval_runs (
    eval_id    TEXT PRIMARY KEY,
    created_at TIMESTAMP DEFAULT current_timestamp,
    name       TEXT,
    dataset    TEXT,
    split      TEXT,
    config     JSON,
    status     TEXT,
    metrics    JSON
);

CREATE TABLE IF NOT EXISTS eval_results (
    eval_id     TEXT NOT NULL,
    question_id TEXT NOT NULL,
    run_id      TEXT,
    ranked      JSON,                 -- ranked node ext_ids as returned
    gold        JSON,
    metrics     JSON,
    error       TEXT,
    PRIMARY KEY (eval_id, question_id)
);

CREATE INDEX IF NOT EXISTS llm_calls_key ON llm_calls (key);
CREATE INDEX IF NOT EXISTS runs_eval ON runs (eval_id);
