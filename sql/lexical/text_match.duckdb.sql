-- DuckDB's form of text_match.sql: the same nodes. A store whose load kept every text
-- lower-cased (lower_texts: node_lower_texts, sql/load/indexes.duckdb.sql) LIKEs that
-- copy: 5.5 ms over the 82K WordNet noun glosses. A store loaded by an earlier afr uses
-- ILIKE on nodes (26 ms): the patterns arrive lower-cased, and ILIKE folds the text as
-- lower() does without a lower-cased copy of every text of the type first. (PostgreSQL's
-- ILIKE is its slower form, 118 against 51 ms for lower() LIKE: it keeps the portable
-- file.) tests/test_text_match.py compares every form with lower() LIKE on mixed-case
-- Unicode on every store.
SELECT n.id
FROM {{ "node_lower_texts" if lower_texts else "nodes" }} AS n
WHERE TRUE
{% if ids %}
  AND n.id IN (SELECT unnest(CAST($ids AS BIGINT[])))
{% endif %}
{% if node_type %}
  AND n.type = $node_type
{% endif %}
{% for c in conditions %}
{% if c.field == "text" and lower_texts %}
  AND n.text LIKE ${{ c.param }} ESCAPE '\'
{% elif c.field == "text" %}
  AND coalesce(n.text, '') ILIKE ${{ c.param }} ESCAPE '\'
{% else %}
  AND (coalesce(n.name, '') ILIKE ${{ c.param }} ESCAPE '\'
       OR EXISTS (SELECT 1 FROM node_aliases AS a
                  WHERE a.node_id = n.id AND a.alias ILIKE ${{ c.param }} ESCAPE '\'))
{% endif %}
{% endfor %}
ORDER BY n.id
LIMIT $limit
