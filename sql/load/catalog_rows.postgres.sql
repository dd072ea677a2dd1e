-- The rows of a table a user names for an SKB's nodes or edges, one JSON object each
-- (jsonb attrs nested, arrays as lists), for the staging to read as a table's rows. The
-- name was checked against the database's catalog first.
SELECT row_to_json(t)::text FROM {{ table }} AS t
