-- Bulk rows through binary COPY (Store.write_rows).
COPY {{ table }} ({{ columns | join(", ") }}) FROM STDIN (FORMAT binary)
