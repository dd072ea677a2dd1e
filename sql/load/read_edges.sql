-- edges.csv(.gz): src,type,dst. Line numbers count the header as line 1.
CREATE OR REPLACE TEMP TABLE stg_raw_edges AS
SELECT ordinality + 1 AS line, src, type, dst
FROM read_csv($path, header = true, auto_detect = false, delim = ',', quote = '"', escape = '"',
              columns = {'src': 'VARCHAR', 'type': 'VARCHAR', 'dst': 'VARCHAR'})
WITH ORDINALITY
