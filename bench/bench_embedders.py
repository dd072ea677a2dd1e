"""Embedders compared (issue 27, item 7): speed per document variant, and retrieval quality.

**speed** — nodes/s of each embedder spec on the two document variants (`doc`, `doc_rel`)
of a sample of a store's nodes, embedded in batches of 256 as `afr embed` does. The
documents are built once, before any timing (building them costs every embedder the same);
each repeat makes a fresh embedder (the hashing embedder memoises words) and times only
its `embed` calls. Prints the median wall-clock rate over the repeats and the rate per
CPU-second of the process (other jobs on a shared machine slow the first, not the second).

    python bench/bench_embedders.py speed STORE SPEC [SPEC …] [--sample 2000] [--repeat 3]
        [--unsorted]

``--unsorted`` adds a row per ``onnx:`` spec with its length-sorted batching off (each
batch padded to its longest text as the texts come), to show what sorting saves.

**quality** — one `afr eval` per (store, question file, replay column), no reranker, no LLM;
each store holds the vectors of one embedder (`afr embed --model SPEC`). Prints hit@1/5/20,
recall@20 and MRR (percent) of vss, hybrid and af (hybrid ranking, the default) as a
markdown table.

    python bench/bench_embedders.py quality LABEL=STORE [LABEL=STORE …]
        --questions FILE [FILE …] [--columns cypher,cypher_noisy]

(sentence-transformers reads $HF_HUB_OFFLINE=1 to stay off the network with local models.)
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import subprocess
import sys
import time
from pathlib import Path

VARIANTS = ("doc", "doc_rel")
METRICS = ("hit@1", "hit@5", "hit@20", "recall@20", "mrr")
SHOWN = {"vss": "vss", "hybrid": "hybrid", "1-8": "af"}  # eval variant → method
BATCH = 256


def sample_documents(db: str, sample: int, seed: int) -> dict[str, list[str]]:
    """Both variants' documents of ``sample`` nodes drawn with ``random.Random(seed)``."""
    from afr.store import open_store
    from afr.vectors.documents import build_documents

    store = open_store(db, read_only=True)
    try:
        ids = sorted(row[0] for row in store.query("SELECT id FROM nodes"))
        chosen = sorted(random.Random(seed).sample(ids, min(sample, len(ids))))
        return {v: list(build_documents(store, chosen, v).values()) for v in VARIANTS}
    finally:
        store.close()


def time_embedder(spec: str, texts: list[str], sort: bool = True) -> tuple[float, float]:
    """(wall seconds, CPU seconds) of one fresh embedder embedding ``texts`` in batches."""
    from afr.embed import make_embedder

    embedder = make_embedder(spec)
    if not sort:
        embedder.sort_by_length = False  # type: ignore[attr-defined]
    embedder.embed(["warm-up"])  # loads lazy parts; the word memo keeps one word
    wall, cpu = time.perf_counter(), time.process_time()
    for start in range(0, len(texts), BATCH):
        embedder.embed(texts[start:start + BATCH])
    return time.perf_counter() - wall, time.process_time() - cpu


def speed(args: argparse.Namespace) -> None:
    docs = sample_documents(args.store, args.sample, args.seed)
    print("| embedder | variant | nodes | median s | nodes/s (wall) | nodes per CPU-s |")
    print("|---|---|---:|---:|---:|---:|")
    rows = [(spec, True) for spec in args.specs]
    if args.unsorted:
        rows += [(spec, False) for spec in args.specs if spec.startswith("onnx:")]
    for spec, sort in rows:
        for variant in VARIANTS:
            runs = [time_embedder(spec, docs[variant], sort) for _ in range(args.repeat)]
            wall = statistics.median(w for w, _ in runs)
            cpu = statistics.median(c for _, c in runs)
            n = len(docs[variant])
            label = spec if sort else f"{spec} (unsorted)"
            print(f"| {label} | {variant} | {n:,} | {wall:.1f} | {n / wall:,.0f} | "
                  f"{n / cpu:,.0f} |", flush=True)


def eval_metrics(db: str, questions: str, column: str) -> dict[str, dict[str, float]]:
    afr = str(Path(sys.executable).with_name("afr"))
    cmd = [afr, "--no-progress", "--db", db, "eval", "run", questions, "--replay", column,
           "--reranker", "none", "--offline", "--json", "--no-log"]
    out = subprocess.run(cmd, capture_output=True, text=True, check=False)
    if out.returncode:
        sys.exit(f"{' '.join(cmd)}: {out.stderr.strip()}")
    return json.loads(out.stdout)["metrics"]


def quality(args: argparse.Namespace) -> None:
    print("| questions | Cypher | embedder | method | " + " | ".join(METRICS) + " |")
    print("|---|---|---|---|" + "---:|" * len(METRICS))
    for questions in args.questions:
        for column in args.columns.split(","):
            for labelled in args.stores:
                label, _, db = labelled.partition("=")
                metrics = eval_metrics(db, questions, column)
                for variant, method in SHOWN.items():
                    cells = " | ".join(f"{100 * metrics[variant][m]:.1f}" for m in METRICS)
                    print(f"| {Path(questions).stem} | {column} | {label} | {method} | "
                          f"{cells} |", flush=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    commands = parser.add_subparsers(dest="command", required=True)
    fast = commands.add_parser("speed")
    fast.add_argument("store")
    fast.add_argument("specs", nargs="+")
    fast.add_argument("--sample", type=int, default=2000)
    fast.add_argument("--repeat", type=int, default=3)
    fast.add_argument("--seed", type=int, default=27)
    fast.add_argument("--unsorted", action="store_true",
                      help="also time onnx: specs without length-sorted batches")
    good = commands.add_parser("quality")
    good.add_argument("stores", nargs="+", metavar="LABEL=STORE")
    good.add_argument("--questions", nargs="+", required=True)
    good.add_argument("--columns", default="cypher,cypher_noisy")
    args = parser.parse_args()
    speed(args) if args.command == "speed" else quality(args)


if __name__ == "__main__":
    main()
