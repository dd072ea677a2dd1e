"""Retrieval latency, steps 3–7, on a PRIME-sized synthetic SKB, DuckDB and PostgreSQL,
next to the in-memory set oracle (step 5) on the same queries, in the same run.

Scripted Cypher queries (1–3 triplets, 1–2 named constants, some through hub nodes) go
through parse → resolve → symbol search (l_max 100) → grounding → the two VSS steps,
with 384-d vectors from the built-in embedder. Reports p50/p95 per step.

    python bench/bench_retrieval.py [--nodes 130000] [--edges 8000000] [--queries 100]
                                    [--stores duckdb,postgres] [--no-oracle]
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent


def pct(values: list[float], q: float) -> float:
    values = sorted(values)
    return values[min(len(values) - 1, int(round(q * (len(values) - 1))))] * 1000


def make_queries(store, n: int, seed: int = 0) -> list[tuple[str, str | None]]:
    """Cypher over real edges: start at a random edge, walk 1–3 triplets."""
    rng = random.Random(seed)
    schema = store.skb_schema()
    labels = {t.type: t.label for t in schema.edge_types.values()}
    rows = store.query("SELECT src, type, dst FROM edges USING SAMPLE 2000 ROWS") \
        if store.dialect.name == "duckdb" else store.query(
            "SELECT src, type, dst FROM edges TABLESAMPLE SYSTEM (1) LIMIT 2000")
    names = dict(store.query("SELECT id, name FROM nodes"))
    types = dict(store.query("SELECT id, type FROM nodes"))
    out = []
    for i in range(n):
        src, etype, dst = rng.choice(rows)
        hops = 1 + i % 3
        consts = 1 + (i % 2)
        parts = [f"(y:`{types[src]}`)-[:`{labels[etype]}`]-(c1:`{types[dst]}` "
                 f"{{name: \"{names[dst]}\"}})"]
        if hops >= 2:
            nxt = store.query("SELECT type, dst FROM edges WHERE src = $s LIMIT 5"
                              if store.dialect.name == "duckdb" else
                              "SELECT type, dst FROM edges WHERE src = %(s)s LIMIT 5",
                              {"s": src})
            if nxt:
                et2, d2 = rng.choice(nxt)
                spec = f" {{name: \"{names[d2]}\"}}" if consts == 2 else ""
                parts.append(f"(y)-[:`{labels[et2]}`]-(c2:`{types[d2]}`{spec})")
        if hops == 3:
            parts.append(f"(c1)-[:`{labels[etype]}`]-(m:`{types[src]}`)")
        out.append(("MATCH " + ", ".join(parts) + " RETURN y", types[src]))
    return out


def run_store(store, queries, embedder, memory: bool = False
              ) -> tuple[dict[str, list[float]], list]:
    from afr.pipeline.ask import Pipeline
    from afr.pipeline.config import AskConfig

    pipeline = Pipeline(store, AskConfig(offline=True, log=False), embedder=embedder)
    if memory:
        from afr.vectors.memory import search_matrix, use_memory_vectors

        t = time.perf_counter()
        use_memory_vectors(store)
        for variant in ("doc", "doc_rel"):
            search_matrix(store, variant, embedder.dim)
        print(f"{store.dialect.name}: search matrices loaded in "
              f"{time.perf_counter() - t:.1f} s", file=sys.stderr)
    steps: dict[str, list[float]] = {}
    gqueries = []
    import afr.pipeline.grounding as ask_mod

    original = ask_mod.ground

    def spy(st, gq, **kw):
        gqueries.append(gq)
        return original(st, gq, **kw)

    ask_mod.ground = spy
    try:
        for cypher, target in queries[:3]:  # warm-up
            pipeline.ask("warm up " + cypher, cypher=cypher, target_type=target)
        gqueries.clear()
        for cypher, target in queries:
            result = pipeline.ask("which nodes match " + cypher, cypher=cypher,
                                  target_type=target)
            for step in ("3_parse", "4_symbols", "5_grounding", "6_vss_grounded",
                         "7_vss_topup"):
                steps.setdefault(step, []).append(result.timings.get(step, 0.0))
            steps.setdefault("3-7 total", []).append(sum(
                result.timings.get(s, 0.0) for s in ("3_parse", "4_symbols", "5_grounding",
                                                     "6_vss_grounded", "7_vss_topup")))
    finally:
        ask_mod.ground = original
    return steps, gqueries


def prepare(store, data: Path, embedder, kind: str) -> None:
    """Load once; embedding is incremental, so an interrupted run resumes where it stopped."""
    from afr.load import load_skb_dir
    from afr.vectors import embed_store

    t = time.perf_counter()
    if store.skb_name() is None:
        load_skb_dir(store, data, replace=True, progress=False)
        print(f"{kind}: loaded in {time.perf_counter() - t:.0f} s", file=sys.stderr)
    t = time.perf_counter()
    report = embed_store(store, embedder, batch_size=2048, progress=True)
    if any(report.embedded.values()):
        print(f"{kind}: embedded {report.embedded} in {time.perf_counter() - t:.0f} s",
              file=sys.stderr)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--nodes", type=int, default=130_000)
    parser.add_argument("--edges", type=int, default=8_000_000)
    parser.add_argument("--queries", type=int, default=100)
    parser.add_argument("--stores", default="duckdb,postgres")
    parser.add_argument("--no-oracle", action="store_true")
    parser.add_argument("--work", type=Path, default=Path(tempfile.gettempdir()))
    args = parser.parse_args()
    sys.path.insert(0, str(HERE))
    from synth_skb import generate

    from afr.embed import make_embedder
    from afr.store import open_store

    data = args.work / f"afr-synth-{args.nodes}-{args.edges}"
    if not (data / "edges.csv.gz").exists():
        generate(data, args.nodes, args.edges)
    embedder = make_embedder("hash:384")
    results = {}
    queries = None
    gq_for_oracle = None
    for kind in args.stores.split(","):
        if kind == "duckdb":
            path = args.work / f"afr-bench-{args.nodes}-{args.edges}.duckdb"
            store = open_store(path)
            prepare(store, data, embedder, "duckdb")
        else:
            import pgserver

            server = pgserver.get_server(args.work / "afr-bench-pg", cleanup_mode=None)
            store = open_store(server.get_uri(), schema="bench")
            prepare(store, data, embedder, "postgres")
        if queries is None:
            queries = make_queries(store, args.queries)
        steps, gqueries = run_store(store, queries, embedder)
        results[kind] = steps
        if kind == "duckdb":
            results["duckdb+memvec"], _ = run_store(store, queries, embedder, memory=True)
        gq_for_oracle = gq_for_oracle or (store, gqueries)
    if not args.no_oracle and gq_for_oracle:
        from afr.ground import edge_directions
        from afr.ground.oracle import Graph, oracle_ground

        store, gqueries = gq_for_oracle
        t = time.perf_counter()
        edges = store.query("SELECT src, type, dst FROM edges")
        node_types = dict(store.query("SELECT id, type FROM nodes"))
        graph = Graph(edges, node_types, edge_directions(store))
        build = time.perf_counter() - t
        times = []
        for gq in gqueries:
            t = time.perf_counter()
            oracle_ground([], node_types, gq, k=20, l_max=100,
                          directed_skb=graph.directed, graph=graph)
            times.append(time.perf_counter() - t)
        results["oracle (warm)"] = {"5_grounding": times}
        results["oracle (cold)"] = {"5_grounding": [x + build for x in times]}
        print(f"oracle adjacency build: {build:.1f} s", file=sys.stderr)
    print(f"{'store':14} {'step':16} {'p50 ms':>9} {'p95 ms':>9} {'mean ms':>9}")
    for kind, steps in results.items():
        for step, values in steps.items():
            print(f"{kind:14} {step:16} {pct(values, .5):9.1f} {pct(values, .95):9.1f} "
                  f"{statistics.mean(values) * 1000:9.1f}")


if __name__ == "__main__":
    main()
