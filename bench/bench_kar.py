"""KAR against the other methods, offline: quality and latency per question.

    python bench/bench_kar.py DB:QUESTIONS … [--limit N] [--config TOML]

For each store and question set (QUESTIONS: an SKB directory with questions.csv, a CSV
file, or `demo`), one `afr eval --offline --reranker none` per method (af, kar) gives
hit@1/5/20, recall@20 and MRR of its final list and of the plain variants vss and hybrid
(the same questions); then each method asks every question once more in this process
(logged, as `afr ask` does) for the latency: median and 95th percentile in ms.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

METRICS = ("hit@1", "hit@5", "hit@20", "recall@20", "mrr")


def _quality(afr: str, db: str, questions: str, method: str, limit: int | None,
             env: dict[str, str]) -> dict[str, dict[str, float]]:
    cmd = [afr, "--db", db, "--no-progress", "eval", questions, "--offline", "--reranker",
           "none", "--method", method, "--json", "--no-log"]
    if limit:
        cmd += ["--limit", str(limit)]
    out = subprocess.run(cmd, check=True, capture_output=True, text=True, env=env).stdout
    return json.loads(out)["metrics"]


def _latency(db: str, questions: str, method: str, limit: int | None) -> tuple[float, float]:
    from afr.evaluate.questions import load_questions
    from afr.pipeline.ask import Pipeline
    from afr.resources import demo_skb_dir
    from afr.settings import Settings, with_values
    from afr.store import open_store

    source = str(demo_skb_dir()) if questions == "demo" else questions
    items = load_questions(Path(source), limit=limit)
    store = open_store(db)
    try:
        pipe = Pipeline(store, with_values(Settings(), {"ask.method": method, "llm.offline": True, "rerank.method": "none"}))
        pipe.ask(items[0].query)  # warm: first-use reads are set-up, not a question's cost
        times = []
        for q in items:
            started = time.perf_counter()
            pipe.ask(q.query)
            times.append((time.perf_counter() - started) * 1000)
    finally:
        store.close()
    times.sort()
    return statistics.median(times), times[min(len(times) - 1, int(0.95 * len(times)))]


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("runs", nargs="+", help="DB:QUESTIONS")
    ap.add_argument("--limit", type=int)
    ap.add_argument("--config", help="a settings file (e.g. with a [kar] table)")
    args = ap.parse_args()
    afr = str(Path(sys.executable).with_name("afr"))
    env = dict(os.environ)
    if args.config:
        env["AFR_CONFIG"] = args.config
        os.environ["AFR_CONFIG"] = args.config
    print("| set | method | " + " | ".join(METRICS) + " | p50 ms | p95 ms |")
    print("|---|---|" + "---|" * (len(METRICS) + 2))
    for spec in args.runs:
        db, questions = spec.rsplit(":", 1)
        name = Path(questions).name
        for method in ("af", "kar"):
            metrics = _quality(afr, db, questions, method, args.limit, env)
            rows = [(method, metrics["1-8"])]
            if method == "af":
                rows += [("vss", metrics["vss"]), ("hybrid", metrics["hybrid"])]
            for label, m in rows:
                p50, p95 = _latency(db, questions, label, args.limit) \
                    if label in ("af", "kar", "vss", "hybrid") else (0.0, 0.0)
                cells = " | ".join(f"{100 * m[k]:.1f}" for k in METRICS)
                print(f"| {name} | {label} | {cells} | {p50:.0f} | {p95:.0f} |", flush=True)


if __name__ == "__main__":
    main()
