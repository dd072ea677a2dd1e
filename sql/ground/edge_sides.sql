-- How many edges of one type leave the given nodes ($ids as src) and how many reach them
-- ($ids as dst): whether the data has a relation of a named node one way round, the
-- other, or both.
SELECT
    (SELECT count(*) FROM edges
     WHERE type = $type AND src IN (SELECT unnest(CAST($ids AS BIGINT[])))) AS leaving,
    (SELECT count(*) FROM edges
     WHERE type = $type AND dst IN (SELECT unnest(CAST($ids AS BIGINT[])))) AS reaching
