"""Check an `afr synth` question set against afr's SQL grounding, at any size.

Loads the SKB into a DuckDB file (once), then for every question grounds its gold Cypher
with the SQL grounding (constants matched by exact name; no embeddings needed) and checks
that all the gold answers are among the grounded ones. The gold answers themselves come
from the in-memory oracle, so this is an independent check of the generator.

    python bench/check_synth.py SKB_DIR DB_FILE
"""

from __future__ import annotations

import argparse
import csv
import json
import time
from pathlib import Path

from afr.cypher import parse_cypher
from afr.cypher.resolve import resolve
from afr.ground import GroundingQuery, GSymbol, GTriplet, ground
from afr.load import load_skb_dir
from afr.store import open_store


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("skb", type=Path)
    parser.add_argument("db", type=Path)
    args = parser.parse_args()
    store = open_store(str(args.db))
    if store.skb_name() is None:
        started = time.perf_counter()
        report = load_skb_dir(store, args.skb, progress=False)
        print(f"loaded {report.nodes:,} nodes, {report.edges:,} edges in "
              f"{time.perf_counter() - started:.1f} s")
    schema = store.skb_schema()
    ok, missed, seconds = 0, 0, []
    with open(args.skb / "questions.csv", encoding="utf-8", newline="") as fh:
        rows = list(csv.DictReader(fh))
    for row in rows:
        resolved = resolve(parse_cypher(row["cypher"]), schema, mode="strict",
                           use_edge_types=True, target_type=row["target_type"])
        symbols = {}
        for var, sym in resolved.symbols.items():
            ids = None
            if sym.is_constant:
                ids = tuple(i for (i,) in store.query(
                    "SELECT id FROM nodes WHERE name = $n AND type = $t",
                    {"n": sym.search_strings[0], "t": sym.node_type}))
            symbols[var] = GSymbol(var, sym.node_type, candidates=ids)
        query = GroundingQuery(symbols, tuple(GTriplet(t.head, t.edge_type, t.tail, t.directed)
                                              for t in resolved.triplets), resolved.target)
        started = time.perf_counter()
        result = ground(store, query, k=20, l_max=1)
        seconds.append(time.perf_counter() - started)
        ids = [n for n, _ in result.answers]
        found = {e for (e,) in store.query(
            "SELECT ext_id FROM nodes WHERE id IN (SELECT unnest(CAST($i AS BIGINT[])))",
            {"i": ids})} if ids else set()
        gold = {str(g) for g in json.loads(row["answer_ids"])}
        if gold <= found:
            ok += 1
        else:
            missed += 1
            print(f"MISSED question {row['id']}: {sorted(gold - found)[:5]} for {row['cypher']}")
    seconds.sort()
    print(f"{ok} of {len(rows)} questions: gold ⊆ SQL grounding ({missed} missed); grounding "
          f"median {seconds[len(seconds) // 2] * 1000:.0f} ms, max {seconds[-1] * 1000:.0f} ms")
    store.close()


if __name__ == "__main__":
    main()
