"""afr next to peers on the same SKB — the synthetic one, or a real one (``--skb``) —
interleaved per question, warm, in this one process.

- **Kuzu** (an embedded Cypher database; a bench-only dependency: ``pip install kuzu``),
  set up as a Kuzu user would: one node table per node type (its key, its name), one
  relationship table per edge type between its real source and target types, loaded
  from Parquet with ``COPY``. Each question's relational part — its gold Cypher's
  pattern with typed labels and the exact names of its constants; text and attribute
  conditions left out, on both sides — runs in Kuzu and as afr's steps 3–5 (parse,
  symbol search with l_max 100, grounding). Questions with nothing relational (no
  relation, no name) are left out. Reported: p50/p95 of each, the p50 ratio, how often
  Kuzu's answer set equals afr's level-1 answers (every exact name or alias match of each
  constant is level 1) and their mean Jaccard.
- **afr's steps 3–7** on the full gold Cypher (ranking included, offline, unlogged), per
  step, on the DuckDB store and — with ``--pg-url`` — on a PostgreSQL store holding the
  same SKB, the stores alternating per question.
- **bm25s** (``pip install bm25s``), unless ``--no-bm25``: BM25 top-20 over the
  relation-free node documents against afr's vector search over the target type (step 7).

The machine's load average is printed with the results: compare runs of one session.

    python bench/bench_peers.py [--nodes 30000] [--edges 1850000] [--questions 100]
    python bench/bench_peers.py --skb DIR --questions CSV [--store FILE.duckdb]
                                [--pg-url URL --pg-schema NAME]
    common: [--work DIR] [--rounds 3] [--no-kuzu] [--no-bm25] [--profile] [--bm25-paths]

With ``--skb`` the store (``--store``, default WORK/afr-peers-<name>.duckdb) is loaded and
embedded first when it is empty; ``--store`` may also name a store already loaded from
that SKB (bench/real/README.md builds one). ``--questions`` is a CSV with columns
``query``, ``cypher`` and ``target_type`` (afr's question files).
"""

from __future__ import annotations

import argparse
import csv
import os
import shutil
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

STEPS = ("3_parse", "4_symbols", "5_grounding", "6_7_hybrid")


def pct(values: list[float], q: float) -> float:
    values = sorted(values)
    return values[min(len(values) - 1, int(round(q * (len(values) - 1))))] * 1000


def load_line() -> str:
    one, five, _ = os.getloadavg()
    return f"load average {one:.1f} (1 min) / {five:.1f} (5 min) on {os.cpu_count()} cores"


def synthetic(work: Path, nodes: int, edges: int, questions: int) -> tuple[Path, Path]:
    """The synthetic SKB (PRIME-like) and its question file, generated once."""
    from afr.synth import generate

    data = work / f"afr-peers-{nodes}-{edges}"
    if not (data / "questions.csv").exists():
        t = time.perf_counter()
        generate(data, like="prime", nodes=nodes, edges=edges, questions=questions, seed=1,
                 exist_ok=True)
        print(f"synth: {time.perf_counter() - t:.0f} s", file=sys.stderr)
    return data, data / "questions.csv"


def prepared_store(path: Path | str, skb: Path, **kw):
    """The store at ``path`` with ``skb`` loaded, embedded and indexed (each step only
    when missing: embedding and indexing are incremental)."""
    from afr.embed import make_embedder
    from afr.lexical.index import build_lexical_index
    from afr.load import load_skb_dir
    from afr.store import open_store
    from afr.vectors import embed_store

    store = open_store(path, **kw)
    if store.skb_name() is None:
        t = time.perf_counter()
        load_skb_dir(store, skb, replace=True, progress=False)
        print(f"afr load: {time.perf_counter() - t:.1f} s", file=sys.stderr)
    t = time.perf_counter()
    report = embed_store(store, make_embedder("hash:384"), batch_size=2048, progress=False)
    indexed = build_lexical_index(store, progress=False)
    if any(report.embedded.values()) or indexed.indexed:
        print(f"afr embed + index: {time.perf_counter() - t:.0f} s", file=sys.stderr)
    return store


# -- Kuzu ------------------------------------------------------------------------------


def _ident(name: str) -> str:
    return "`" + name.replace("`", "") + "`"


def _literal(text: str) -> str:
    return "'" + text.replace("'", "''") + "'"


def load_kuzu(store, folder: Path):
    """Kuzu as its users define a graph: one node table per node type (id, name; the id
    its primary key), one relationship table per edge type FROM/TO the types its edges
    join, each loaded with COPY from a Parquet file the DuckDB store writes."""
    import kuzu

    shutil.rmtree(folder, ignore_errors=True)
    folder.mkdir(parents=True)
    db = kuzu.Database(str(folder / "db"))
    conn = kuzu.Connection(db)
    t = time.perf_counter()
    node_types = [r[0] for r in store.query("SELECT DISTINCT type FROM nodes ORDER BY 1")]
    for i, ntype in enumerate(node_types):
        path = folder / f"nodes{i}.parquet"
        store.execute(f"COPY (SELECT id, coalesce(name, '') AS name FROM nodes "
                      f"WHERE type = {_literal(ntype)} ORDER BY id) TO '{path}' "
                      "(FORMAT parquet)")
        conn.execute(f"CREATE NODE TABLE {_ident(ntype)}(id INT64, name STRING, "
                     "PRIMARY KEY (id))")
        conn.execute(f"COPY {_ident(ntype)} FROM '{path}'")
    pairs: dict[str, list[tuple[str, str]]] = {}
    for etype, src, dst in store.query(
            "SELECT DISTINCT e.type, s.type, d.type FROM edges AS e "
            "JOIN nodes AS s ON s.id = e.src JOIN nodes AS d ON d.id = e.dst ORDER BY 1, 2, 3"):
        pairs.setdefault(etype, []).append((src, dst))
    files = 0
    for etype, ends in pairs.items():
        spec = ", ".join(f"FROM {_ident(s)} TO {_ident(d)}" for s, d in ends)
        conn.execute(f"CREATE REL TABLE {_ident(etype)}({spec})")
        for src, dst in ends:
            path = folder / f"edges{files}.parquet"
            files += 1
            store.execute(
                f"COPY (SELECT e.src AS \"from\", e.dst AS \"to\" FROM edges AS e "
                f"JOIN nodes AS s ON s.id = e.src JOIN nodes AS d ON d.id = e.dst "
                f"WHERE e.type = {_literal(etype)} AND s.type = {_literal(src)} "
                f"AND d.type = {_literal(dst)}) TO '{path}' (FORMAT parquet)")
            option = f" (from='{src}', to='{dst}')" if len(ends) > 1 else ""
            conn.execute(f"COPY {_ident(etype)} FROM '{path}'{option}")
    print(f"kuzu load: {time.perf_counter() - t:.1f} s ({len(node_types)} node tables, "
          f"{len(pairs)} relationship tables)", file=sys.stderr)
    return db, conn


def relational_graph(graph):
    """The query graph with only its relational part: names kept, text and attribute
    conditions dropped (Kuzu gets neither)."""
    from dataclasses import replace

    from afr.cypher.model import NAME_PROPERTIES, is_text_condition

    symbols = {var: replace(sym, conditions=[
        c for c in sym.conditions
        if c.attribute.lower() in NAME_PROPERTIES and c.op == "=" and not is_text_condition(c)])
        for var, sym in graph.symbols.items()}
    return replace(graph, symbols=symbols)


def kuzu_query(resolved, directed_skb: bool) -> tuple[str, dict] | None:
    """The relational part of a resolved query in Kuzu's Cypher: typed node patterns, the
    constants' names as parameters. None when it has no relation and no name."""
    if resolved.target is None or not (resolved.triplets or any(
            s.search_strings for s in resolved.symbols.values())):
        return None
    params: dict = {}
    where: list[str] = []
    names = {v: f"v{i}" for i, v in enumerate(resolved.symbols)}

    def node(var: str) -> str:
        sym = resolved.symbols[var]
        label = f":{_ident(sym.node_type)}" if sym.node_type else ""
        return f"({names[var]}{label})"

    for var, sym in resolved.symbols.items():
        v = names[var]
        if len(sym.search_strings) == 1:
            params[f"n_{v}"] = sym.search_strings[0]
            where.append(f"{v}.name = $n_{v}")
        elif sym.search_strings:
            params[f"n_{v}"] = list(sym.search_strings)
            where.append(f"list_contains($n_{v}, {v}.name)")
    parts = []
    seen: set[str] = set()
    for t in resolved.triplets:
        hops = "" if (t.min_hops, t.max_hops) == (1, 1) else f"*{t.min_hops}..{t.max_hops}"
        rel = f"[:{_ident(t.edge_type)}{hops}]" if t.edge_type else f"[{hops}]"
        arrow = "->" if directed_skb and t.directed else "-"
        head = node(t.head) if t.head not in seen else f"({names[t.head]})"
        seen.add(t.head)
        tail = node(t.tail) if t.tail not in seen else f"({names[t.tail]})"
        seen.add(t.tail)
        parts.append(f"{head}-{rel}{arrow}{tail}")
    if not parts:
        parts = [node(resolved.target)]
    text = "MATCH " + ", ".join(parts)
    if where:
        text += " WHERE " + " AND ".join(where)
    return text + f" RETURN DISTINCT {names[resolved.target]}.id", params


@dataclass
class Case:
    row: dict
    relational: str  # the gold Cypher's relational part, as afr reads it
    kuzu: tuple[str, dict]


def kuzu_cases(rows: list[dict], schema) -> list[Case]:
    from afr.cypher import parse_cypher, render_cypher, resolve

    cases = []
    for row in rows:
        graph = relational_graph(parse_cypher(row["cypher"]))
        resolved = resolve(graph, schema, target_type=row["target_type"] or None)
        query = kuzu_query(resolved, schema.directed)
        if query is not None:
            cases.append(Case(row, render_cypher(graph), query))
    return cases


def exact_names_only(session, cypher: str, target_type: str | None):
    """afr's steps 3-5 stopped where Kuzu's work ends: parse and resolve, every constant's
    exact name matches (the similarity search that widens the scope deferred, never run)
    and the grounding of those (level 1). The grounding result."""
    from afr.cypher import parse_cypher, resolve
    from afr.ground import ground
    from afr.methods.af.grounding import fix_cypher, grounding_query
    from afr.methods.af.symbols import retrieve_symbols

    af = session.settings.af
    fixed = fix_cypher(parse_cypher(cypher), session.schema, session.catalog,
                       target_type=target_type, enabled=af.fix)
    resolved = resolve(fixed.graph, session.schema, mode=af.mode,
                       use_edge_types=af.use_edge_types, target_type=target_type)
    symbols = retrieve_symbols(session.store, session.embedder, resolved, session.catalog,
                               l_max=af.l_max, defer=True)
    query = grounding_query(resolved, symbols)
    return ground(session.store, query, k=session.settings.ask.k, l_max=af.l_max) \
        if query is not None else None


def compare_kuzu(session, conn, cases: list[Case], rounds: int) -> None:
    """afr's steps 3–5 and Kuzu on each case's relational part, alternating which goes
    first; one untimed round first (warm)."""
    from afr.methods.af.grounding import ground_cypher

    afr_35: list[float] = []
    afr_5: list[float] = []
    afr_exact: list[float] = []
    kuzu_t: list[float] = []
    agree: dict[str, tuple[bool, float, int]] = {}
    for rnd in range(rounds + 1):
        for i, case in enumerate(cases):
            def run_afr(case=case, timed=rnd > 0):
                t = time.perf_counter()
                out = ground_cypher(session, case.relational,
                                    target_type=case.row["target_type"] or None)
                if timed:
                    afr_35.append(time.perf_counter() - t)
                    afr_5.append(out.timings.get("5_grounding", 0.0))
                answers = out.result.answers if out.result else []
                return {n for n, level in answers if level == 1}

            def run_exact(case=case, timed=rnd > 0):
                t = time.perf_counter()
                exact_names_only(session, case.relational, case.row["target_type"] or None)
                if timed:
                    afr_exact.append(time.perf_counter() - t)

            def run_kuzu(case=case, timed=rnd > 0):
                text, params = case.kuzu
                t = time.perf_counter()
                found = {int(r[0]) for r in conn.execute(text, params).get_all()}
                if timed:
                    kuzu_t.append(time.perf_counter() - t)
                return found

            if (i + rnd) % 2:
                level1, peer = run_afr(), run_kuzu()
                run_exact()
            else:
                run_exact()
                peer, level1 = run_kuzu(), run_afr()
            union = level1 | peer
            agree[case.row.get("id", str(i))] = (
                level1 == peer, len(level1 & peer) / len(union) if union else 1.0, len(peer))
    import kuzu

    n = len(cases)
    same = sum(a for a, _, _ in agree.values())
    sizes = [s for _, _, s in agree.values()]
    print(f"\n## afr steps 3-5 vs Kuzu {kuzu.__version__}: the relational part of {n} gold "
          f"Cypher queries, {rounds} timed round(s), interleaved, warm")
    print(f"answer sets equal (afr level 1 = Kuzu): {same}/{n}; mean Jaccard "
          f"{statistics.mean(j for _, j, _ in agree.values()):.3f}; Kuzu answers per query: "
          f"median {statistics.median(sizes):.0f}, max {max(sizes)}")
    differ = [f"{q} ({j:.2f})" for q, (eq, j, _) in agree.items() if not eq]
    if differ:
        print("differ (Jaccard): " + ", ".join(differ))
    print(f"| {'':26} | {'p50 ms':>8} | {'p95 ms':>8} |\n|---|---:|---:|")
    for name, values in (("afr steps 3-5", afr_35), ("afr step 5 (grounding)", afr_5),
                         ("afr 3-5, exact names only", afr_exact), ("Kuzu", kuzu_t)):
        print(f"| {name:26} | {pct(values, .5):8.1f} | {pct(values, .95):8.1f} |")
    print(f"ratio at p50: afr 3-5 / Kuzu {pct(afr_35, .5) / pct(kuzu_t, .5):.1f}x; "
          f"afr 5 / Kuzu {pct(afr_5, .5) / pct(kuzu_t, .5):.1f}x; afr exact names only / "
          f"Kuzu {pct(afr_exact, .5) / pct(kuzu_t, .5):.1f}x")
    print("(afr's steps 3-5 widen the scope when the exact names ground fewer than k "
          "answers: similarity search per constant, then grounding level by level; the "
          "exact-names-only line is the work Kuzu does)")


# -- afr steps 3-7 --------------------------------------------------------------------


@dataclass
class StepTimes:
    total: list[float] = field(default_factory=list)
    steps: dict[str, list[float]] = field(default_factory=dict)

    def add(self, total: float, timings: dict[str, float]) -> None:
        self.total.append(total)
        for step in STEPS:
            self.steps.setdefault(step, []).append(timings.get(step, 0.0))


def steps_3_7(pipeline, row: dict) -> tuple[float, dict[str, float]]:
    """One question's steps 3–7 on its gold Cypher (steps 1–2 replaced by it): the
    method's wall time and its step timings."""
    from afr.methods.base import Question, Turn

    question = Question(row["query"], row["cypher"], row["target_type"] or None)
    turn = Turn(None)
    t = time.perf_counter()
    pipeline.retriever.retrieve(question, turn)
    return time.perf_counter() - t, dict(turn.timer.timings)


def compare_stores(pipelines: dict[str, object], rows: list[dict], rounds: int) -> None:
    """Steps 3–7 of every question on each store, the stores alternating per question;
    one untimed round first (warm)."""
    times = {name: StepTimes() for name in pipelines}
    order = list(pipelines)
    for rnd in range(rounds + 1):
        for i, row in enumerate(rows):
            turn = order[(i + rnd) % len(order):] + order[:(i + rnd) % len(order)]
            for name in turn:
                total, timings = steps_3_7(pipelines[name], row)
                if rnd > 0:
                    times[name].add(total, timings)
    print(f"\n## afr steps 3-7 on the full gold Cypher ({len(rows)} questions, {rounds} "
          "timed round(s), hybrid ranking, offline), p50 / p95 ms")
    print(f"| store | {' | '.join(STEPS)} | 3-7 total |\n|---|{'---:|' * (len(STEPS) + 1)}")
    for name, t in times.items():
        cells = [f"{pct(t.steps[s], .5):.1f} / {pct(t.steps[s], .95):.1f}" for s in STEPS]
        cells.append(f"**{pct(t.total, .5):.1f} / {pct(t.total, .95):.1f}**")
        print(f"| {name} | {' | '.join(cells)} |")


def compare_bm25_paths(pipeline, rows: list[dict], rounds: int) -> None:
    """Steps 3-7 on the DuckDB store with BM25 from the mapped postings file against BM25
    in SQL, switched per question (order alternating): the same run, so the ratio holds
    at any load."""
    store = pipeline.session.store
    if not store.maps_postings:
        return
    from afr.lexical.memory import memory_postings

    if memory_postings(store) is None:
        print("\n(no current postings file: run 'afr index' on the store first)")
        return
    times: dict[bool, list[float]] = {True: [], False: []}
    ratios = []
    try:
        for rnd in range(rounds + 1):
            for i, row in enumerate(rows):
                took = {}
                for mapped in ((True, False) if (i + rnd) % 2 else (False, True)):
                    store.maps_postings = mapped
                    took[mapped] = steps_3_7(pipeline, row)[0]
                if rnd > 0:
                    for mapped, t in took.items():
                        times[mapped].append(t)
                    ratios.append(took[True] / took[False])
    finally:
        store.maps_postings = True
    print(f"\n## steps 3-7, BM25 from the mapped postings against BM25 in SQL (DuckDB, "
          f"{len(rows)} questions, {rounds} timed round(s), switched per question)")
    print("| BM25 | p50 ms | p95 ms |\n|---|---:|---:|")
    for mapped, label in ((False, "in SQL"), (True, "mapped postings")):
        print(f"| {label} | {pct(times[mapped], .5):.1f} | {pct(times[mapped], .95):.1f} |")
    print(f"median per-question ratio (mapped / SQL): {statistics.median(ratios):.3f}")


# the leaves steps 3-7 spend their time in (cProfile's cumulative time per question)
PARTS = (
    ("BM25 (step 4 per constant, step 6 the question; mapped postings on DuckDB, SQL "
     "elsewhere)", "afr/lexical/bm25.py", "bm25"),
    ("text conditions (SQL LIKE over the type's lower-cased texts; folded per question "
     "on Spark and older loads)", "afr/retrieval/text_match.py", "match_text"),
    ("vector search (steps 4, 6, 7)", "afr/vectors/search.py", "search"),
    ("grounding (SQL, step 5)", "afr/ground/run.py", "ground"),
    ("provenance (SQL, in 6-7)", "afr/ground/run.py", "witnesses"),
    ("exact names (SQL, step 4)", "afr/store/names.py", "lookup_names"),
    ("attribute filters (SQL, step 4)", "afr/retrieval/filters.py", "filter_nodes"),
)


def profile_steps(pipelines: dict[str, object], rows: list[dict]) -> None:
    """Where steps 3-7 spend their time: one pass per store under cProfile (after the
    timed rounds: warm), the cumulative time of each leaf per question."""
    import cProfile
    import pstats

    from afr.retrieval import parallel

    print("\n## where the time goes: ms per question (cProfile, one pass, every read in "
          "this thread — PostgreSQL's second connection unused — so the parts add up; "
          "cProfile's overhead inflates the Python parts)")
    names = list(pipelines)
    print(f"| part | {' | '.join(names)} |\n|---|{'---:|' * len(names)}")
    columns = []
    for name in names:
        profiler = cProfile.Profile()
        reader_for = parallel.reader_for
        parallel.reader_for = lambda store: None  # cProfile sees this thread only
        profiler.enable()
        try:
            for row in rows:
                steps_3_7(pipelines[name], row)
        finally:
            profiler.disable()
            parallel.reader_for = reader_for
        stats = pstats.Stats(profiler).stats  # type: ignore[attr-defined]
        found = {}
        for label, path, func in (*PARTS, ("steps 3-7 in all", "afr/methods/af/retriever.py",
                                            "retrieve")):
            found[label] = sum(v[3] for (file, _, fn), v in stats.items()
                               if file.endswith(path) and fn == func) / len(rows) * 1000
        columns.append(found)
    for label in columns[0]:
        print(f"| {label} | {' | '.join(f'{c[label]:.1f}' for c in columns)} |")


# -- bm25s ------------------------------------------------------------------------------


def compare_bm25s(store, pipeline, rows: list[dict], schema) -> None:
    try:
        import bm25s
    except ImportError:
        print("bm25s not installed: no lexical peer", file=sys.stderr)
        return
    from afr.lexical import bm25
    from afr.lexical.memory import memory_postings
    from afr.retrieval.lists import vss_strand
    from afr.vectors.documents import build_documents
    from afr.vectors.search import query_vector

    t = time.perf_counter()
    ids = [int(r[0]) for r in store.query("SELECT id FROM nodes ORDER BY id")]
    docs = {}
    for start in range(0, len(ids), 4096):
        docs.update(build_documents(store, ids[start:start + 4096], "doc"))
    corpus_ids = list(docs)
    retriever = bm25s.BM25()
    retriever.index(bm25s.tokenize([docs[i] for i in corpus_ids], show_progress=False),
                    show_progress=False)
    print(f"bm25s {bm25s.__version__}: indexed {len(corpus_ids)} documents in "
          f"{time.perf_counter() - t:.1f} s", file=sys.stderr)
    times: dict[str, list[float]] = {"bm25s top-20 (all nodes)": [],
                                     "afr BM25 top-20 (all nodes)": [],
                                     "afr VSS top-20 (step 7)": []}

    def timed(name: str, work: Callable[[], object]) -> None:
        t = time.perf_counter()
        work()
        times[name].append(time.perf_counter() - t)

    for i, row in enumerate(rows):
        question = row["query"]
        types = [row["target_type"]] if row["target_type"] else schema.candidate_types
        runs = [
            ("bm25s top-20 (all nodes)", lambda q=question: retriever.retrieve(
                bm25s.tokenize([q], show_progress=False), k=20, show_progress=False)),
            ("afr BM25 top-20 (all nodes)", lambda q=question: bm25(
                store, q, params=pipeline.settings.bm25, k=20)),
            ("afr VSS top-20 (step 7)", lambda q=question, t=types: vss_strand(
                store, query_vector(store, pipeline.session.embedder, q), t, 20)),
        ]
        for name, work in runs[i % 3:] + runs[:i % 3]:  # the order rotates
            timed(name, work)
    print(f"\n## top-20 lists ({len(rows)} questions; afr's BM25 "
          f"{'from the mapped postings' if memory_postings(store) else 'in SQL'})\n"
          "| | p50 ms | p95 ms |\n|---|---:|---:|")
    for name, values in times.items():
        print(f"| {name} | {pct(values, .5):.1f} | {pct(values, .95):.1f} |")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--nodes", type=int, default=30_000)
    parser.add_argument("--edges", type=int, default=1_850_000)
    parser.add_argument("--questions", default="100",
                        help="synthetic: how many questions; with --skb: their CSV file")
    parser.add_argument("--skb", type=Path, help="a real SKB directory instead of synth")
    parser.add_argument("--store", type=Path, help="the DuckDB store of --skb")
    parser.add_argument("--pg-url", help="also run steps 3-7 on PostgreSQL (same SKB)")
    parser.add_argument("--pg-schema", default="afr")
    parser.add_argument("--work", type=Path, default=Path(tempfile.gettempdir()))
    parser.add_argument("--rounds", type=int, default=3, help="timed rounds per question")
    parser.add_argument("--no-kuzu", action="store_true")
    parser.add_argument("--no-bm25", action="store_true")
    parser.add_argument("--profile", action="store_true",
                        help="also show where steps 3-7 spend their time (cProfile)")
    parser.add_argument("--bm25-paths", action="store_true",
                        help="also time steps 3-7 with BM25 from the mapped postings "
                        "against BM25 in SQL (DuckDB), switched per question")
    args = parser.parse_args()

    from afr.pipeline.ask import Pipeline
    from afr.settings import Settings, with_values

    if args.skb is None:
        skb, questions = synthetic(args.work, args.nodes, args.edges, int(args.questions))
    else:
        skb, questions = args.skb, Path(args.questions)
    store = prepared_store(args.store or args.work / f"afr-peers-{skb.name}.duckdb", skb)
    with open(questions, newline="", encoding="utf-8") as fh:
        rows = list(csv.DictReader(fh))
    settings = with_values(Settings(), {"llm.offline": True, "ask.log": False})
    pipelines = {"duckdb": Pipeline(store, settings)}
    if args.pg_url:
        pipelines["postgres"] = Pipeline(
            prepared_store(args.pg_url, skb, schema=args.pg_schema), settings)
    schema = store.skb_schema()
    print(f"# {store.skb_name()}: {len(rows)} questions ({questions}); {load_line()}")

    sections: list[Callable[[], None]] = []
    if not args.no_kuzu:
        def kuzu_section() -> None:
            db, conn = load_kuzu(store, args.work / f"kuzu-peers-{skb.name}")
            compare_kuzu(pipelines["duckdb"].session, conn, kuzu_cases(rows, schema),
                         args.rounds)
            del conn, db
        sections.append(kuzu_section)
    sections.append(lambda: compare_stores(pipelines, rows, args.rounds))
    if args.bm25_paths:
        sections.append(lambda: compare_bm25_paths(pipelines["duckdb"], rows, args.rounds))
    if args.profile:
        sections.append(lambda: profile_steps(pipelines, rows))
    if not args.no_bm25:
        sections.append(lambda: compare_bm25s(store, pipelines["duckdb"], rows, schema))
    for section in sections:
        section()
    print(f"\n{load_line()} (at the end)")


if __name__ == "__main__":
    main()
