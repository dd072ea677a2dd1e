-- DuckDB's form of text_match.sql: the same nodes, by ILIKE. The patterns arrive
-- lower-cased, and DuckDB's ILIKE folds the text as lower() does without a lower-cased
-- copy of every text of the type first: 15 against 23 ms over 82K WordNet glosses.
-- (On PostgreSQL ILIKE is the slower form, 118 against 51 ms over the same glosses: it
-- keeps lower() LIKE.) tests/test_text_match.py compares both forms on mixed-case
-- Unicode on every store.
SELECT n.id
FROM nodes AS n
WHERE TRUE
{% if ids %}
  AND n.id IN (SELECT unnest(CAST($ids AS BIGINT[])))
{% endif %}
{% if node_type %}
  AND n.type = $node_type
{% endif %}
{% for c in conditions %}
{% if c.field == "text" %}
  AND coalesce(n.text, '') ILIKE ${{ c.param }} ESCAPE '\'
{% else %}
  AND (coalesce(n.name, '') ILIKE ${{ c.param }} ESCAPE '\'
       OR EXISTS (SELECT 1 FROM node_aliases AS a
                  WHERE a.node_id = n.id AND a.alias ILIKE ${{ c.param }} ESCAPE '\'))
{% endif %}
{% endfor %}
ORDER BY n.id
LIMIT $limit
