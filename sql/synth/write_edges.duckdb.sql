-- `afr synth`: the generated edges (numpy arrays registered as synth_edges, edge type by
-- index) to a plain CSV file that afr then gzips. No ORDER BY: run on one thread, the rows
-- keep the generator's order (by edge type, then src, then dst), so a seed always gives
-- the same file.
COPY (
    SELECT e.src, n.name AS type, e.dst
    FROM synth_edges AS e JOIN synth_edge_names AS n ON n.i = e.t
) TO '{{ path }}' (FORMAT csv, HEADER true)
