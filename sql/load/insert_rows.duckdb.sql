-- Bulk rows from numpy arrays registered as afr_rows_batch (Store.write_rows).
INSERT INTO {{ table }} ({{ columns | join(", ") }})
SELECT {{ columns | join(", ") }} FROM afr_rows_batch
