"""Retrieval latency, steps 3–7, on a PRIME-sized synthetic SKB, DuckDB and PostgreSQL,
next to the in-memory set oracle (step 5) on the same queries, in the same run.

Scripted Cypher queries (1–3 triplets, 1–2 named constants, some through hub nodes) go
through parse → resolve → symbol search (l_max 100) → grounding → ranking (steps 6–7,
hybrid by default) and the answers' provenance (within 6–7 with the hybrid ranking), with
384-d vectors from the built-in embedder, offline and unlogged. Reports p50/p95 per step;
"3-7 total" is all of it.
Warm, as the aims are stated: each store first answers as many other queries of the same
kind, so its working set is in memory, but no timed query has been asked before. The
queries start from a fixed sample of edges: the same ones on every run.

    python bench/bench_retrieval.py [--nodes 130000] [--edges 8000000] [--queries 100]
                                    [--stores duckdb,postgres] [--no-oracle] [--no-lexical]
                                    [--pg-url URL | --keep-pg]

PostgreSQL is a pgserver started in a fresh data directory under --work and stopped and
deleted at the end (--keep-pg keeps it, loaded and embedded, for the next run; --pg-url
uses a server of your own, in the schema "bench"). Ends with a table of steps 3–7, p50 /
p95 per store.
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
    # the same sample on every run (of a store loaded the same way)
    rows = store.query("SELECT src, type, dst FROM edges "
                       "USING SAMPLE reservoir(2000 ROWS) REPEATABLE (7)") \
        if store.dialect.name == "duckdb" else store.query(
            "SELECT src, type, dst FROM edges TABLESAMPLE SYSTEM (1) REPEATABLE (7) "
            "ORDER BY src, type, dst LIMIT 2000")
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


def run_store(store, queries, embedder, memory: bool = False, warmup=()
              ) -> tuple[dict[str, list[float]], list]:
    """Steps 3-7 of every query, timed, after the ``warmup`` queries (other ones: the
    store's working set is in memory, but no timed query has been asked before)."""
    from afr.pipeline.ask import Pipeline
    from afr.settings import Settings, with_values

    pipeline = Pipeline(store, with_values(Settings(), {"llm.offline": True, "ask.log": False}), embedder=embedder)
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
    import afr.methods.af.grounding as ask_mod

    original = ask_mod.ground

    def spy(st, gq, **kw):
        gqueries.append(gq)
        return original(st, gq, **kw)

    ask_mod.ground = spy
    try:
        for cypher, target in warmup:
            pipeline.ask("warm up " + cypher, cypher=cypher, target_type=target)
        gqueries.clear()
        for cypher, target in queries:
            result = pipeline.ask("which nodes match " + cypher, cypher=cypher,
                                  target_type=target)
            timings = result.timings
            for step in ("3_parse", "4_symbols", "5_grounding"):
                steps.setdefault(step, []).append(timings.get(step, 0.0))
            # steps 6-7: one fused step with hybrid ranking (the default), two with paper
            steps.setdefault("6-7 ranking", []).append(sum(
                timings.get(s, 0.0) for s in ("6_7_hybrid", "6_vss_grounded", "7_vss_topup")))
            if "provenance" in timings:  # the hybrid ranking runs it within 6-7
                steps.setdefault("provenance", []).append(timings["provenance"])
            steps.setdefault("3-7 total", []).append(sum(
                v for k, v in timings.items() if k[0] in "34567" or k == "provenance"))
    finally:
        ask_mod.ground = original
    return steps, gqueries


def prepare(store, data: Path, embedder, kind: str, *, lexical: bool = True) -> None:
    """Load once; embedding is incremental, so an interrupted run resumes where it stopped.
    The lexical index is built too, as `afr embed` does by default: hybrid ranking (the
    default) then runs BM25 in steps 4 and 6-7, as an ask does."""
    from afr.lexical.index import build_lexical_index
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
    if lexical:
        t = time.perf_counter()
        indexed = build_lexical_index(store, progress=True)
        if indexed.indexed:
            print(f"{kind}: lexical index of {indexed.indexed} nodes in "
                  f"{time.perf_counter() - t:.0f} s", file=sys.stderr)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--nodes", type=int, default=130_000)
    parser.add_argument("--edges", type=int, default=8_000_000)
    parser.add_argument("--queries", type=int, default=100)
    parser.add_argument("--stores", default="duckdb,postgres")
    parser.add_argument("--no-oracle", action="store_true")
    parser.add_argument("--no-lexical", action="store_true",
                        help="build no BM25 index (a store that has one keeps using it): "
                             "hybrid ranking without its lexical signals")
    parser.add_argument("--work", type=Path, default=Path(tempfile.gettempdir()))
    parser.add_argument("--pg-url", help="PostgreSQL URL (default: a pgserver of its own)")
    parser.add_argument("--keep-pg", action="store_true",
                        help="keep the pgserver's data, loaded and embedded, for the next run")
    parser.add_argument("--pg-shared-buffers", metavar="SIZE",
                        help="set shared_buffers of the bench's own pgserver (a restart; "
                             "kept with --keep-pg). PostgreSQL's default is 128MB")
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
    queries = warmup = None
    gq_for_oracle = None
    servers = []
    for kind in args.stores.split(","):
        if kind == "duckdb":
            path = args.work / f"afr-bench-{args.nodes}-{args.edges}.duckdb"
            store = open_store(path)
            prepare(store, data, embedder, "duckdb", lexical=not args.no_lexical)
        elif kind == "postgres":
            url = args.pg_url
            if url is None:
                server = pg_server(args.work, keep=args.keep_pg)
                servers.append(server)
                if args.pg_shared_buffers:
                    set_shared_buffers(server, args.pg_shared_buffers)
                url = server.get_uri()
            store = open_store(url, schema="bench")
            prepare(store, data, embedder, "postgres", lexical=not args.no_lexical)
        else:
            raise SystemExit(f"unknown store {kind!r}: use duckdb and/or postgres")
        if queries is None:
            queries = make_queries(store, args.queries)
            warmup = make_queries(store, args.queries, seed=1)
        steps, gqueries = run_store(store, queries, embedder, warmup=warmup)
        results[kind] = steps
        if kind == "duckdb":
            results["duckdb+memvec"], _ = run_store(store, queries, embedder, memory=True,
                                                    warmup=warmup)
        if gq_for_oracle is None:
            gq_for_oracle = (store, gqueries)
        else:
            store.close()
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
    if gq_for_oracle:
        gq_for_oracle[0].close()
    for server in servers:
        server.cleanup()  # stops it; deletes its data unless --keep-pg
    print(f"{'store':14} {'step':16} {'p50 ms':>9} {'p95 ms':>9} {'mean ms':>9}")
    for kind, steps in results.items():
        for step, values in steps.items():
            print(f"{kind:14} {step:16} {pct(values, .5):9.1f} {pct(values, .95):9.1f} "
                  f"{statistics.mean(values) * 1000:9.1f}")
    # one line per store: the figures the issue's aims are about
    steps_shown = ("3_parse", "4_symbols", "5_grounding", "6-7 ranking", "provenance",
                   "3-7 total")
    print(f"\np50 / p95 ms ({len(queries or [])} queries, {args.nodes:,} nodes, "
          f"{args.edges:,} edges)")
    print(f"| store | {' | '.join(steps_shown)} |")
    print(f"|---|{'---|' * len(steps_shown)}")
    for kind, steps in results.items():
        if "3-7 total" not in steps:
            continue
        cells = [f"{pct(steps[s], .5):.1f} / {pct(steps[s], .95):.1f}" if s in steps
                 else "in 6-7" for s in steps_shown]
        print(f"| {kind} | {' | '.join(cells)} |")


def pg_server(work: Path, *, keep: bool):
    """A pgserver of the bench's own: in ``work/afr-bench-pg`` when kept between runs,
    else in a fresh directory that is deleted, with the server stopped, at the end."""
    import pgserver

    if keep:
        return pgserver.get_server(work / "afr-bench-pg", cleanup_mode="stop")
    return pgserver.get_server(tempfile.mkdtemp(prefix="afr-bench-pg-", dir=work),
                               cleanup_mode="delete")


def set_shared_buffers(server, value: str) -> None:
    """Give the pgserver ``value`` of shared_buffers (a restart when it changes)."""
    import psycopg
    from pgserver._commands import pg_ctl

    with psycopg.connect(server.get_uri(), autocommit=True) as con:
        same = con.execute("SELECT pg_size_bytes(current_setting('shared_buffers')) = "
                           "pg_size_bytes(%s)", (value,)).fetchone()[0]
        if not same:
            con.execute(psycopg.sql.SQL("ALTER SYSTEM SET shared_buffers = {}").format(
                psycopg.sql.Literal(value)))
    if not same:
        pg_ctl(["-w", "stop"], pgdata=server.pgdata, user=server.system_user)
        server.ensure_postgres_running()
    print(f"postgres: shared_buffers {value}", file=sys.stderr)


if __name__ == "__main__":
    main()
