-- Stores loaded before the name index (schema 6) have no node_names rows: the lookup
-- then scans nodes and aliases with lower(), as it did before.
-- Nodes whose name or an alias equals one of a constant's search strings
-- (case-insensitive), of the constant's type and among its allowed nodes (when its
-- filters restrict it): they lead the constant's candidate list, ahead of the
-- vector-similarity ranking. All constants of a question in one statement: $syms/$names
-- pair each search string with its constant's number, $sym_ids/$types/$restricted describe
-- each constant, $allowed_syms/$allowed_ids list the allowed nodes of restricted ones.
WITH wanted AS (
    SELECT sym, lower(trim(s)) AS s
    FROM (SELECT unnest(CAST($syms AS INTEGER[])) AS sym,
                 unnest(CAST($names AS VARCHAR[])) AS s) AS w
),
constants AS (
    SELECT unnest(CAST($sym_ids AS INTEGER[])) AS sym,
           unnest(CAST($types AS VARCHAR[])) AS type,
           unnest(CAST($restricted AS BOOLEAN[])) AS restricted
),
allowed AS (
    SELECT unnest(CAST($allowed_syms AS INTEGER[])) AS sym,
           unnest(CAST($allowed_ids AS BIGINT[])) AS id
),
hits AS (
    SELECT w.sym, n.id, n.type FROM wanted AS w JOIN nodes AS n ON lower(n.name) = w.s
    UNION
    SELECT w.sym, n.id, n.type
    FROM wanted AS w
    JOIN node_aliases AS a ON lower(a.alias) = w.s
    JOIN nodes AS n ON n.id = a.node_id
),
kept AS (
    SELECT h.sym, h.id,
           row_number() OVER (PARTITION BY h.sym ORDER BY h.id) AS position
    FROM hits AS h
    JOIN constants AS c ON c.sym = h.sym
    WHERE (c.type IS NULL OR h.type = c.type)
      AND (NOT c.restricted
           OR EXISTS (SELECT 1 FROM allowed AS a WHERE a.sym = h.sym AND a.id = h.id))
)
SELECT sym, id FROM kept
WHERE position <= $limit
ORDER BY sym, id
