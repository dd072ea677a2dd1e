"""Methods and rankings side by side (issue 11): hit@1/5/20, recall@20 and MRR per
variant, for each store and replay column given, no reranker, offline.

    python bench/ranking_methods.py DB:QUESTIONS[:COLUMN] … [--limit N] [--config TOML]
        [--methods kar,sage,af+sage]

COLUMN is a replay column (cypher, cypher_noisy) or `offline` (the offline formalizer).
Each run is one `afr eval` with the variants vss, bm25, hybrid, af:paper, af:hybrid, plus
one per method of --methods (`afr eval --methods`: the same questions asked again), with
its median latency per question.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
from pathlib import Path

SHOW = ("vss", "bm25", "hybrid", "af:paper", "af:hybrid")
METRICS = ("hit@1", "hit@5", "hit@20", "recall@20", "mrr")


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("runs", nargs="+")
    ap.add_argument("--limit", type=int)
    ap.add_argument("--config", help="a settings file (its [ranking] and [bm25] tables apply)")
    ap.add_argument("--methods", default="", help="other methods, comma-separated")
    args = ap.parse_args()
    afr = str(Path(sys.executable).with_name("afr"))
    env = dict(os.environ)
    if args.config:
        env["AFR_CONFIG"] = args.config
    methods = [m for m in args.methods.split(",") if m]
    print("| set | Cypher | method | " + " | ".join(METRICS) + " | p50 ms |")
    print("|---|---|---|" + "---|" * (len(METRICS) + 1))
    for spec in args.runs:
        db, questions, *rest = spec.split(":")
        column = rest[0] if rest else "offline"
        cmd = [afr, "--db", db, "eval", questions, "--reranker", "none", "--offline",
               "--json", "--no-log"]
        if column != "offline":
            cmd += ["--replay", column]
        if args.limit:
            cmd += ["--limit", str(args.limit)]
        if methods:
            cmd += ["--methods", ",".join(methods)]
        out = subprocess.run(cmd, capture_output=True, text=True, env=env)
        if out.returncode:
            sys.exit(f"{' '.join(cmd)}: {out.stderr.strip()}")
        summary = json.loads(out.stdout)
        metrics, latency = summary["metrics"], summary["latency"]
        own = "af:hybrid"  # the runs use the default ranking: the eval's own asks
        for name in (*SHOW, *(f"method={m}" for m in methods)):
            m = metrics.get(name, {})
            cells = " | ".join(f"{100 * m.get(x, 0):.1f}" for x in METRICS)
            timed = "method=af" if name == own else name
            ms = (latency.get(timed) or {}).get("median")
            took = f"{1000 * ms:.0f}" if ms is not None else ""
            print(f"| {Path(db).stem} | {column} | {name.removeprefix('method=')} | {cells} "
                  f"| {took} |", flush=True)


if __name__ == "__main__":
    main()
