"""afr next to peers on the same synthetic SKB, interleaved per question.

- Kuzu (an embedded Cypher database; a bench-only dependency: ``pip install kuzu``) loads
  the same nodes and edges; the relational part of each question's gold Cypher, with its
  exact names, runs in both. Reported: how often Kuzu's answer set equals afr's level-1
  answers (all exact-name matches of every constant are level 1), their mean Jaccard, and
  latencies — afr's steps 3–5 (parse, symbol search with l_max 100, grounding) and its
  grounding alone, against Kuzu's query — with the p50 ratio.
- bm25s (``pip install bm25s``), when installed: BM25 top-20 over the relation-free node
  documents against afr's vector search over the target type (step 7), per question.

Both afr and the peers run warm, in this one process, alternating which goes first.

    python bench/bench_peers.py [--nodes 30000] [--edges 1850000] [--questions 100]
                                [--work DIR] [--no-bm25]
"""

from __future__ import annotations

import argparse
import csv
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path


def pct(values: list[float], q: float) -> float:
    values = sorted(values)
    return values[min(len(values) - 1, int(round(q * (len(values) - 1))))] * 1000


def prepare(work: Path, nodes: int, edges: int, questions: int):
    from afr.embed import make_embedder
    from afr.load import load_skb_dir
    from afr.store import open_store
    from afr.synth import generate
    from afr.vectors import embed_store

    data = work / f"afr-peers-{nodes}-{edges}"
    if not (data / "questions.csv").exists():
        t = time.perf_counter()
        generate(data, like="prime", nodes=nodes, edges=edges, questions=questions, seed=1,
                 exist_ok=True)
        print(f"synth: {time.perf_counter() - t:.0f} s", file=sys.stderr)
    store = open_store(work / f"afr-peers-{nodes}-{edges}.duckdb")
    if store.skb_name() is None:
        t = time.perf_counter()
        load_skb_dir(store, data, replace=True, progress=False)
        print(f"afr load: {time.perf_counter() - t:.1f} s", file=sys.stderr)
    t = time.perf_counter()
    report = embed_store(store, make_embedder("hash:384"), batch_size=2048, progress=False)
    if any(report.embedded.values()):
        print(f"afr embed: {report.embedded} in {time.perf_counter() - t:.0f} s",
              file=sys.stderr)
    with open(data / "questions.csv", newline="", encoding="utf-8") as fh:
        rows = list(csv.DictReader(fh))
    return store, data, rows


def load_kuzu(store, folder: Path):
    """One node table (id, type, name) and one relationship table per edge type."""
    import kuzu

    shutil.rmtree(folder, ignore_errors=True)
    folder.mkdir(parents=True)
    db = kuzu.Database(str(folder / "db"))
    conn = kuzu.Connection(db)
    t = time.perf_counter()
    nodes_file = folder / "nodes.parquet"
    store.query(f"COPY (SELECT id, type, coalesce(name, '') AS name FROM nodes ORDER BY id) "
                f"TO '{nodes_file}' (FORMAT parquet)")
    conn.execute("CREATE NODE TABLE Node(id INT64, type STRING, name STRING, "
                 "PRIMARY KEY (id))")
    conn.execute(f"COPY Node FROM '{nodes_file}'")
    edge_types = [r[0] for r in store.query("SELECT DISTINCT type FROM edges ORDER BY 1")]
    for i, etype in enumerate(edge_types):
        path = folder / f"edges{i}.parquet"
        store.query(f"COPY (SELECT src AS \"from\", dst AS \"to\" FROM edges "
                    f"WHERE type = '{etype}') TO '{path}' (FORMAT parquet)")
        conn.execute(f"CREATE REL TABLE `{etype}`(FROM Node TO Node)")
        conn.execute(f"COPY `{etype}` FROM '{path}'")
    print(f"kuzu load: {time.perf_counter() - t:.1f} s ({len(edge_types)} relationship "
          "tables)", file=sys.stderr)
    return db, conn


def kuzu_query(resolved, directed_skb: bool) -> tuple[str, dict] | None:
    """The relational part of a resolved query in Kuzu's Cypher: node types and exact
    names as parameters."""
    if resolved.target is None:
        return None
    params: dict = {}
    where: list[str] = []
    names = {v: f"v{i}" for i, v in enumerate(resolved.symbols)}
    for var, sym in resolved.symbols.items():
        v = names[var]
        if sym.node_type:
            params[f"t_{v}"] = sym.node_type
            where.append(f"{v}.type = $t_{v}")
        if sym.search_strings:
            params[f"n_{v}"] = list(sym.search_strings)
            where.append(f"list_contains($n_{v}, {v}.name)")
    parts = []
    for t in resolved.triplets:
        hops = "" if (t.min_hops, t.max_hops) == (1, 1) else f"*{t.min_hops}..{t.max_hops}"
        rel = f"[:`{t.edge_type}`{hops}]" if t.edge_type else f"[{hops}]" if hops else "[]"
        arrow = "->" if directed_skb and t.directed else "-"
        parts.append(f"({names[t.head]}:Node)-{rel}{arrow}({names[t.tail]}:Node)")
    if not parts:
        parts = [f"({names[resolved.target]}:Node)"]
    text = "MATCH " + ", ".join(parts)
    if where:
        text += " WHERE " + " AND ".join(where)
    return text + f" RETURN DISTINCT {names[resolved.target]}.id", params


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--nodes", type=int, default=30_000)
    parser.add_argument("--edges", type=int, default=1_850_000)
    parser.add_argument("--questions", type=int, default=100)
    parser.add_argument("--work", type=Path, default=Path(tempfile.gettempdir()))
    parser.add_argument("--no-bm25", action="store_true")
    args = parser.parse_args()

    from afr.cypher import parse_cypher, resolve
    from afr.methods.af.paper_ranking import vss_strand
    from afr.pipeline.ask import Pipeline
    from afr.settings import Settings, with_values
    from afr.vectors.search import query_vector

    store, data, rows = prepare(args.work, args.nodes, args.edges, args.questions)
    db, conn = load_kuzu(store, args.work / f"kuzu-peers-{args.nodes}-{args.edges}")
    pipeline = Pipeline(store, with_values(Settings(), {"llm.offline": True, "ask.log": False}))
    schema = store.skb_schema()

    cases = []
    for row in rows:
        graph = parse_cypher(row["cypher"])
        resolved = resolve(graph, schema, target_type=row["target_type"] or None)
        query = kuzu_query(resolved, schema.directed)
        if query is not None:
            cases.append((row, query))
    for row, (text, params) in cases[:3]:  # warm-up, both sides
        pipeline.ground_cypher(row["cypher"], target_type=row["target_type"] or None)
        conn.execute(text, params).get_all()

    afr_35, afr_5, kuzu_t, same, jaccard, sizes = [], [], [], 0, [], []
    for i, (row, (text, params)) in enumerate(cases):
        def run_afr(row=row):
            t = time.perf_counter()
            out = pipeline.ground_cypher(row["cypher"], target_type=row["target_type"] or None)
            afr_35.append(time.perf_counter() - t)
            afr_5.append(out.timings.get("5_grounding", 0.0))
            answers = out.result.answers if out.result else []
            return {n for n, level in answers if level == 1}

        def run_kuzu(text=text, params=params):
            t = time.perf_counter()
            found = {int(r[0]) for r in conn.execute(text, params).get_all()}
            kuzu_t.append(time.perf_counter() - t)
            return found

        if i % 2:
            level1, peer = run_afr(), run_kuzu()
        else:
            peer, level1 = run_kuzu(), run_afr()
        same += level1 == peer
        union = level1 | peer
        jaccard.append(len(level1 & peer) / len(union) if union else 1.0)
        sizes.append(len(peer))
    n = len(cases)
    print(f"\nKuzu {__import__('kuzu').__version__}, {n} gold Cypher queries of "
          f"{data.name} ({args.nodes} nodes, {args.edges} edges), interleaved, warm")
    print(f"answer sets equal (afr level 1 = Kuzu): {same}/{n}; mean Jaccard "
          f"{statistics.mean(jaccard):.3f}; Kuzu answers per query: median "
          f"{statistics.median(sizes):.0f}, max {max(sizes)}")
    print(f"{'':26} {'p50 ms':>8} {'p95 ms':>8}")
    for name, values in (("afr steps 3-5", afr_35), ("afr step 5 (grounding)", afr_5),
                         ("Kuzu", kuzu_t)):
        print(f"{name:26} {pct(values, .5):8.1f} {pct(values, .95):8.1f}")
    print(f"ratio p50 afr 3-5 / Kuzu: {pct(afr_35, .5) / pct(kuzu_t, .5):.1f}x; "
          f"afr 5 / Kuzu: {pct(afr_5, .5) / pct(kuzu_t, .5):.1f}x")

    if args.no_bm25:
        return
    try:
        import bm25s
    except ImportError:
        print("bm25s not installed: no lexical peer", file=sys.stderr)
        return
    from afr.vectors.documents import build_documents

    t = time.perf_counter()
    ids = [int(r[0]) for r in store.query("SELECT id FROM nodes ORDER BY id")]
    docs = {}
    for start in range(0, len(ids), 4096):
        docs.update(build_documents(store, ids[start:start + 4096], "doc"))
    corpus_ids = list(docs)
    retriever = bm25s.BM25()
    retriever.index(bm25s.tokenize([docs[i] for i in corpus_ids], show_progress=False),
                    show_progress=False)
    print(f"\nbm25s {bm25s.__version__}: indexed {len(corpus_ids)} documents in "
          f"{time.perf_counter() - t:.1f} s", file=sys.stderr)
    bm25_t, vss_t = [], []
    for i, (row, _) in enumerate(cases):
        question = row["query"]
        types = [row["target_type"]] if row["target_type"] else schema.candidate_types

        def run_bm25(question=question):
            t = time.perf_counter()
            retriever.retrieve(bm25s.tokenize([question], show_progress=False), k=20,
                               show_progress=False)
            bm25_t.append(time.perf_counter() - t)

        def run_vss(question=question, types=types):
            t = time.perf_counter()
            vss_strand(store, query_vector(store, pipeline.embedder, question), types, 20)
            vss_t.append(time.perf_counter() - t)

        if i % 2:
            run_bm25(), run_vss()
        else:
            run_vss(), run_bm25()
    print(f"{'bm25s top-20 (all nodes)':26} {pct(bm25_t, .5):8.1f} {pct(bm25_t, .95):8.1f}")
    print(f"{'afr VSS top-20 (step 7)':26} {pct(vss_t, .5):8.1f} {pct(vss_t, .95):8.1f}")
    del db


if __name__ == "__main__":
    main()
