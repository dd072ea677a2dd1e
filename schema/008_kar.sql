-- afr store, schema version 8: the run log of KAR asks (`--method kar`, afr/pipeline/kar.py).
-- One row per entity of the question (parsed by the LLM, linked offline, or the question
-- itself as a pseudo-entity) with the node it was linked to.
CREATE TABLE IF NOT EXISTS run_kar_entities (
    run_id      TEXT NOT NULL,
    entity      INTEGER NOT NULL,     -- 0 = the question itself, then 1, 2 … in parse order
    source      TEXT NOT NULL,        -- question | llm | offline
    entity_text TEXT NOT NULL,        -- what was embedded to link it
    parsed_type TEXT,                 -- the node type it was searched in (NULL: any)
    node_id     BIGINT,               -- the linked node (NULL: nothing found)
    score       DOUBLE                -- cosine similarity of the link (1 for an exact name)
);

-- One row per kept neighbour of a linked entity (top k by similarity to the question),
-- with one path to it: node_id —r1→ mid —r2→ neighbour (mid and r2 NULL for one hop).
CREATE TABLE IF NOT EXISTS run_kar_triples (
    run_id    TEXT NOT NULL,
    entity    INTEGER NOT NULL,       -- run_kar_entities.entity
    rank      INTEGER NOT NULL,       -- 1 = most similar to the question, per entity
    head      BIGINT NOT NULL,        -- the linked node
    r1        TEXT NOT NULL,          -- edge type of the first step
    forward1  BOOLEAN NOT NULL,       -- whether that edge is stored in walking order
    mid       BIGINT,
    r2        TEXT,
    forward2  BOOLEAN,
    tail      BIGINT NOT NULL,        -- the neighbour
    hop       INTEGER NOT NULL,
    score     DOUBLE,                 -- the neighbour's doc similarity to the question
    rendered  TEXT NOT NULL           -- the triple as the expansion prompt shows it
);

-- The expansions appended to the question (K6): LLM samples, or the offline graph-PRF text.
CREATE TABLE IF NOT EXISTS run_kar_expansions (
    run_id TEXT NOT NULL,
    sample INTEGER NOT NULL,
    source TEXT NOT NULL,             -- llm | graph_prf
    text   TEXT NOT NULL
);
