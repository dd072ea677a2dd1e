-- Which of the nodes satisfy every text condition: a node's text (column text) or, for
-- name conditions, its name or one of its aliases, compared case-insensitively with an
-- escaped LIKE pattern (one bound parameter per condition; a backslash escapes the
-- wildcards).
--
-- Text conditions on a store whose load kept every text lower-cased (lower_texts:
-- node_lower_texts, sql/load/indexes.*.sql) LIKE that copy: the same nodes, without a
-- lower() per text and question.
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
  AND lower(coalesce(n.text, '')) LIKE ${{ c.param }} ESCAPE '\'
{% else %}
  AND (lower(coalesce(n.name, '')) LIKE ${{ c.param }} ESCAPE '\'
       OR EXISTS (SELECT 1 FROM node_aliases AS a
                  WHERE a.node_id = n.id AND lower(a.alias) LIKE ${{ c.param }} ESCAPE '\'))
{% endif %}
{% endfor %}
ORDER BY n.id
LIMIT $limit
