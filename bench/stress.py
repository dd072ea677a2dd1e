"""Load and stress: concurrent `afr ask` processes on one PostgreSQL store, a hub node
with 100,000 edges, a Cypher query with 10 triplets — wall times, p50/p95, peak RSS.

1. concurrency: the demo SKB in PostgreSQL; ``--procs`` (8) `afr ask` processes at a
   time, ``--rounds`` times, offline and with a scripted local LLM (listwise reranking,
   so the processes also write the llm_calls cache and run log side by side).
2. hub: a synthetic SKB (papers, authors, fields) where one author wrote ``--papers``
   (100,000) papers, in a DuckDB file and in PostgreSQL; questions through the hub.
3. ten triplets: one Cypher query with 10 triplets over the same SKB.

Every ask runs in its own process; its peak RSS comes from wait4(2). Any non-zero exit or
an "error" on stderr is counted and printed.

    python bench/stress.py [--pg-url URL] [--papers 100000] [--procs 8] [--rounds 3]
                           [--stores duckdb,postgres] [--json OUT]
"""

from __future__ import annotations

import argparse
import csv
import json
import os
import random
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
# -P: no current directory on sys.path, so a source checkout in the working directory
# cannot shadow the installed package (its cli/ and sql/ only join afr when installed).
AFR = [sys.executable, "-P", "-c", "from afr.cli.main import main; main()"]

HUB = "Hub Author"
SCHEMA = {
    "name": "stress", "description": "papers, authors, fields; one author wrote them all",
    "directed": False, "candidate_types": ["paper"],
    "node_types": {"paper": {"description": "a paper"}, "author": {"description": "a person"},
                   "field": {"description": "a field of study"}},
    "edge_types": {
        "writes": {"source": "author", "target": "paper", "label": "author_writes_paper"},
        "cites": {"source": "paper", "target": "paper", "label": "paper_cites_paper"},
        "has_field": {"source": "paper", "target": "field", "label": "paper_has_field"},
    },
}
HUB_QUERIES = {
    "hub, 1 triplet": f"MATCH (y:paper)<-[:author_writes_paper]-(a:author {{name: '{HUB}'}}) "
                      "RETURN y",
    "hub + field, 2 triplets": "MATCH (y:paper)<-[:author_writes_paper]-(a:author {name: "
                               f"'{HUB}'}}), (y)-[:paper_has_field]-(f:field {{name: 'field 7'}}) "
                               "RETURN y",
    "hub, 2 hops": "MATCH (y:paper)-[:paper_cites_paper]-(p:paper)<-[:author_writes_paper]-"
                   f"(a:author {{name: '{HUB}'}}) RETURN y",
}
TEN = ("MATCH (y:paper)<-[:author_writes_paper]-(a1:author {name: 'author 12'}), "
       "(y)-[:paper_has_field]-(f1:field {name: 'field 3'}), "
       "(y)-[:paper_cites_paper]-(p2:paper), "
       "(p2)-[:paper_cites_paper]-(p3:paper), "
       "(p3)<-[:author_writes_paper]-(a2:author), "
       "(p2)-[:paper_has_field]-(f2:field), "
       "(a2)-[:author_writes_paper]-(p4:paper), "
       "(p4)-[:paper_has_field]-(f3:field {name: 'field 9'}), "
       "(p4)-[:paper_cites_paper]-(p5:paper), "
       f"(p5)<-[:author_writes_paper]-(a3:author {{name: '{HUB}'}}) "
       "RETURN y")


def pct(values: list[float], q: float) -> float:
    values = sorted(values)
    return values[min(len(values) - 1, int(round(q * (len(values) - 1))))]


def run_measured(args: list[str], env: dict | None = None, timeout: float = 600
                 ) -> tuple[int, float, float, str, str]:
    """(exit code, wall seconds, peak RSS in MB, stdout, stderr) of one process."""
    started = time.perf_counter()
    with tempfile.TemporaryFile("w+") as out, tempfile.TemporaryFile("w+") as err:
        proc = subprocess.Popen(args, stdout=out, stderr=err, text=True, env=env)
        timer = threading.Timer(timeout, proc.kill)
        timer.start()
        try:
            _, status, usage = os.wait4(proc.pid, 0)
        finally:
            timer.cancel()
        proc.returncode = os.waitstatus_to_exitcode(status)
        wall = time.perf_counter() - started
        out.seek(0)
        err.seek(0)
        return proc.returncode, wall, usage.ru_maxrss / 1024, out.read(), err.read()


def afr_cmd(db: str, schema: str | None, *args: str) -> list[str]:
    return [*AFR, "--db", db, *(["--schema", schema] if schema else []), "--no-progress", *args]


def checked(args: list[str], what: str) -> float:
    code, wall, _, _, err = run_measured(args)
    if code != 0:
        raise SystemExit(f"{what} failed: {err.strip()[-500:]}")
    return wall


# -- 1. concurrency --------------------------------------------------------------------


def demo_questions() -> list[str]:
    with open(ROOT / "afr" / "data" / "demo" / "questions.csv", encoding="utf-8") as fh:
        return [row["query"] for row in csv.DictReader(fh)]


def scripted_llm():
    sys.path.insert(0, str(ROOT / "tests"))
    from fake_openai import FakeOpenAI, Reply, prompt_text

    def responder(request: dict) -> Reply:
        text = prompt_text(request)
        if "Reply with the type name" in text:
            return Reply("class" if "class" in text.lower() else "exception")
        if "Cypher" in text:
            return Reply("MATCH (y:exception)-[:exception_inherits_from_exception]-"
                         "(b:exception {name: 'ValueError'}) RETURN y")
        return Reply("3, 1, 2")

    return FakeOpenAI(responder)


def concurrency(db: str, schema: str, procs: int, rounds: int, llm_url: str | None) -> dict:
    questions = demo_questions()
    env = dict(os.environ)
    args_extra = ["--offline"]
    if llm_url:
        env.update(AFR_LLM_BASE_URL=llm_url, AFR_LLM_MODEL="fake", AFR_LLM_API_KEY="x")
        args_extra = ["--reranker", "listwise", "-k", "10"]
    walls: list[float] = []
    rss: list[float] = []
    errors: list[str] = []
    started = time.perf_counter()
    lock = threading.Lock()

    def one(q: str, results: list[tuple]) -> None:
        res = run_measured(afr_cmd(db, schema, "ask", q, "--json", *args_extra), env=env)
        with lock:
            results.append(res)

    for r in range(rounds):
        threads = []
        results: list[tuple] = []
        for i in range(procs):
            q = questions[(r * procs + i) % len(questions)]
            threads.append(threading.Thread(target=one, args=(q, results)))
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        for code, wall, peak, out, err in results:
            walls.append(wall)
            rss.append(peak)
            if code != 0 or "error" in err.lower():
                errors.append(err.strip()[-300:])
            else:
                data = json.loads(out)
                if not data["answers"]:
                    errors.append("no answers")
    return {"asks": len(walls), "errors": len(errors), "error_samples": errors[:3],
            "total_s": time.perf_counter() - started, "p50_s": pct(walls, 0.5),
            "p95_s": pct(walls, 0.95), "max_s": max(walls), "peak_rss_mb": max(rss)}


# -- 2./3. hub SKB, ten triplets ----------------------------------------------------------


def hub_skb(directory: Path, papers: int, seed: int = 0) -> Path:
    rng = random.Random(seed)
    directory.mkdir(parents=True, exist_ok=True)
    (directory / "skb.json").write_text(json.dumps(SCHEMA))
    authors = max(10, papers // 5)
    with open(directory / "nodes.jsonl", "w", encoding="utf-8") as fh:
        fh.write(json.dumps({"id": "hub", "type": "author", "name": HUB}) + "\n")
        for i in range(authors):
            fh.write(json.dumps({"id": f"a{i}", "type": "author", "name": f"author {i}"}) + "\n")
        for i in range(200):
            fh.write(json.dumps({"id": f"f{i}", "type": "field", "name": f"field {i}"}) + "\n")
        for i in range(papers):
            fh.write(json.dumps({"id": f"p{i}", "type": "paper", "name": f"paper {i}",
                                 "text": f"a study of topic {i % 997}",
                                 "attrs": {"year": 1980 + i % 45}}) + "\n")
    edges: set[tuple[str, str, str]] = set()
    for i in range(papers):
        edges.add(("hub", "writes", f"p{i}"))  # the hub: one author, every paper
        edges.add((f"a{rng.randrange(authors)}", "writes", f"p{i}"))
        edges.add((f"p{i}", "has_field", f"f{rng.randrange(200)}"))
        j = rng.randrange(papers)
        if j != i:
            edges.add((f"p{i}", "cites", f"p{j}"))
    with open(directory / "edges.csv", "w", newline="", encoding="utf-8") as fh:
        writer = csv.writer(fh)
        writer.writerow(["src", "type", "dst"])
        writer.writerows(sorted(edges))
    return directory


ONE_ASK = """
import json, resource, sys, time
from afr.store import open_store
from afr.pipeline.ask import Pipeline
from afr.settings import Settings, with_values
db, schema, cypher = sys.argv[1], sys.argv[2] or None, sys.argv[3]
store = open_store(db, schema=schema)
started = time.perf_counter()
result = Pipeline(store, with_values(Settings(), {"llm.offline": True})).ask("Which papers are these?", cypher=cypher)
print(json.dumps({"seconds": time.perf_counter() - started, "answers": len(result.answers),
                  "grounded": len(result.grounding.answers) if result.grounding else 0,
                  "level": result.grounding.final_level if result.grounding else None,
                  "timings": result.timings, "warnings": result.warnings}))
"""


def hub_queries(db: str, schema: str | None, repeat: int) -> dict:
    out = {}
    for name, cypher in {**HUB_QUERIES, "ten triplets": TEN}.items():
        walls, rss, inner = [], [], []
        info: dict = {}
        for _ in range(repeat):
            code, wall, peak, stdout, err = run_measured(
                [sys.executable, "-P", "-c", ONE_ASK, db, schema or "", cypher])
            if code != 0:
                raise SystemExit(f"{name} failed: {err.strip()[-800:]}")
            info = json.loads(stdout.strip().splitlines()[-1])
            walls.append(wall)
            rss.append(peak)
            inner.append(info["seconds"])
        out[name] = {"p50_process_s": pct(walls, 0.5), "p50_ask_s": pct(inner, 0.5),
                     "max_ask_s": max(inner), "peak_rss_mb": max(rss),
                     "answers": info["answers"], "grounded": info["grounded"],
                     "level": info["level"],
                     "grounding_s": info["timings"].get("5_grounding"),
                     "symbols_s": info["timings"].get("4_symbols")}
    return out


MEGABYTE = """
import json, sys, time
sys.path.insert(0, sys.argv[3])
from hostile import cypher_literal, long_string, store_fingerprint
from afr.errors import AfrError
from afr.store import open_store
from afr.pipeline.ask import Pipeline
from afr.settings import Settings, with_values
store = open_store(sys.argv[1], schema=sys.argv[2] or None)
before = store_fingerprint(store)
big = long_string()
pipe = Pipeline(store, with_values(Settings(), {"llm.offline": True}))
cases = {
    "question": dict(question=big),
    "cypher name": dict(question="q", cypher="MATCH (y:paper)<-[:author_writes_paper]-"
                        "(a:author {name: %s}) RETURN y" % cypher_literal(big)),
    "cypher attribute": dict(question="q", cypher="MATCH (y:paper)-[:paper_has_field]-"
                             "(f:field) WHERE y.year = %s RETURN y" % cypher_literal(big)),
    "cypher label": dict(question="q", cypher="MATCH (y:%s) RETURN y" % big[:1 << 20]),
}
out = {}
for name, kw in cases.items():
    started = time.perf_counter()
    try:
        result = pipe.ask(**kw)
        outcome = f"answered ({len(result.answers)})"
    except AfrError as exc:
        outcome = f"clean error: {str(exc)[:80]}"
    out[name] = {"seconds": round(time.perf_counter() - started, 2), "outcome": outcome}
out["store unchanged"] = store_fingerprint(store) == before
print(json.dumps(out))
"""


def megabyte(db: str, schema: str | None) -> dict:
    code, wall, peak, out, err = run_measured(
        [sys.executable, "-P", "-c", MEGABYTE, db, schema or "", str(ROOT / "tests")])
    if code != 0:
        raise SystemExit(f"1 MB strings failed: {err.strip()[-800:]}")
    return {**json.loads(out.strip().splitlines()[-1]), "peak_rss_mb": peak}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--pg-url", help="PostgreSQL URL (default: a pgserver in a temp dir)")
    parser.add_argument("--papers", type=int, default=100_000)
    parser.add_argument("--procs", type=int, default=8)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--stores", default="duckdb,postgres")
    parser.add_argument("--json", dest="json_out")
    parser.add_argument("--skip-concurrency", action="store_true",
                        help="Only the hub, ten-triplet and 1 MB parts.")
    parser.add_argument("--embed-timeout", type=float, default=3600,
                        help="Seconds allowed for embedding the hub SKB.")
    args = parser.parse_args()
    tmp = Path(tempfile.mkdtemp(prefix="afr-stress-"))
    url = args.pg_url
    if url is None:
        import pgserver

        url = pgserver.get_server(str(tmp / "pg"), cleanup_mode="stop").get_uri()
    report: dict = {"cores": os.cpu_count(), "papers": args.papers,
                    "load_average_at_start": os.getloadavg()}

    # 1. concurrent asks on one PostgreSQL store
    if not args.skip_concurrency:
        concurrency_part(report, url, args)
    hub_part(report, url, args, tmp)
    print_report(report, args)


def concurrency_part(report: dict, url: str, args: argparse.Namespace) -> None:
    demo = ROOT / "afr" / "data" / "demo"
    report["demo_load_s"] = checked(afr_cmd(url, "stress_demo", "load", str(demo),
                                            "--replace"), "demo load")
    report["demo_embed_s"] = checked(afr_cmd(url, "stress_demo", "embed"), "demo embed")
    # The same asks one at a time first: what a process costs without company.
    report["sequential_offline"] = concurrency(url, "stress_demo", 1, args.procs, None)
    report["concurrent_offline"] = concurrency(url, "stress_demo", args.procs, args.rounds,
                                               None)
    with scripted_llm() as server:
        report["concurrent_llm"] = concurrency(url, "stress_demo", args.procs, args.rounds,
                                               server.base_url)
    print(json.dumps({k: report[k] for k in ("sequential_offline", "concurrent_offline",
                                             "concurrent_llm")}, indent=1), flush=True)


def hub_part(report: dict, url: str, args: argparse.Namespace, tmp: Path) -> None:
    # 2./3. the hub and the ten triplets, in each store
    skb = hub_skb(tmp / "hub-skb", args.papers)
    for kind in args.stores.split(","):
        db, schema = (str(tmp / "hub.duckdb"), None) if kind == "duckdb" else (url, "stress_hub")
        code, wall, peak, _, err = run_measured(afr_cmd(db, schema, "load", str(skb),
                                                        "--replace"))
        if code:
            raise SystemExit(f"hub load failed: {err[-500:]}")
        entry = {"load_s": wall, "load_peak_rss_mb": peak}
        code, wall, peak, _, err = run_measured(afr_cmd(db, schema, "embed"),
                                                timeout=args.embed_timeout)
        if code:
            raise SystemExit(f"hub embed failed: {err[-500:]}")
        entry.update(embed_s=wall, embed_peak_rss_mb=peak)
        entry["queries"] = hub_queries(db, schema, args.repeat)
        entry["megabyte"] = megabyte(db, schema)
        report[f"hub_{kind}"] = entry
        print(json.dumps({kind: entry}, indent=1), flush=True)


def print_report(report: dict, args: argparse.Namespace) -> None:
    print(f"\nload average at start: {report['load_average_at_start']}")
    print("\n| part | store | runs | errors | p50 s | p95 s | peak RSS MB |")
    print("|---|---|---|---|---|---|---|")
    for key in ("sequential_offline", "concurrent_offline", "concurrent_llm"):
        if key not in report:
            continue
        r = report[key]
        procs = 1 if key.startswith("sequential") else args.procs
        print(f"| {procs} concurrent `afr ask` ({key.split('_')[1]}) | postgres | "
              f"{r['asks']} | {r['errors']} | {r['p50_s']:.2f} | {r['p95_s']:.2f} | "
              f"{r['peak_rss_mb']:.0f} |")
    for kind in args.stores.split(","):
        entry = report[f"hub_{kind}"]
        for name, q in entry["queries"].items():
            print(f"| {name} (ask in-process p50 / max) | {kind} | {args.repeat} | 0 | "
                  f"{q['p50_ask_s']:.2f} | {q['max_ask_s']:.2f} | {q['peak_rss_mb']:.0f} |")
    for kind in args.stores.split(","):
        mb = report[f"hub_{kind}"]["megabyte"]
        print(f"| 1 MB strings ({kind}): " + "; ".join(
            f"{k} {v['seconds']} s {v['outcome']}" for k, v in mb.items()
            if isinstance(v, dict)) + f"; store unchanged: {mb['store unchanged']}; "
            f"peak RSS {mb['peak_rss_mb']:.0f} MB |")
    if args.json_out:
        Path(args.json_out).write_text(json.dumps(report, indent=1, default=str))


if __name__ == "__main__":
    main()
