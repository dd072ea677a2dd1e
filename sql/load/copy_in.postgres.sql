{% set columns = {"nodes": "id, ext_id, type, name, text, attrs",
                  "node_aliases": "node_id, alias",
                  "edges": "src, type, dst"} %}
COPY {{ table }} ({{ columns[table] }}) FROM STDIN (FORMAT csv)
