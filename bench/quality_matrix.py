"""Every method × every kind of Cypher × every store: the quality table issue 27 asks for.

For each ``--set LABEL DB SOURCE`` (a store holding one embedder's vectors, and a question
source `afr eval` reads: a CSV file or an SKB directory with ``cypher`` and
``cypher_noisy`` columns), five `afr eval` runs, no reranker, no LLM:

- ``gold``: ``--replay cypher --methods bm25,vss,hybrid`` — af (hybrid ranking), af with
  the paper's ranking (the same asks, recombined: ``af:paper``), and the plain methods
  over the gold target type;
- ``noisy``: ``--replay cypher_noisy`` — af and af:paper with an LLM's typical mistakes;
- ``offline``: ``--offline --methods bm25,vss,hybrid`` — the offline formalizer, and the
  plain methods over the type it names (as a user without an LLM gets them);
- ``kar``, ``sage``: ``--offline --method kar|sage`` (SAGE only where the store has its
  similarity graph, ``afr index --similarity``; otherwise the cell says so).

Each run's JSON is kept in ``--work`` (one file per set and run): a second invocation
reuses finished runs, so an interrupted matrix carries on. Prints one markdown table per
set (hit@1 / hit@5 / hit@20 / recall@20 / MRR, percent), then a summary of hit@1 / MRR
with a column per set, and writes both to ``--out`` if given.

    python bench/quality_matrix.py --work DIR [--out FILE.md] \
        --set "WordNet dev, hash" /work/real/real.duckdb /work/real/skb/dev.csv \
        --set "synthetic mag, MiniLM" /work/real/syn/mag-minilm.duckdb /work/real/syn/mag

(sentence-transformers reads $HF_HUB_OFFLINE=1 to stay off the network with local models.)
"""

from __future__ import annotations

import argparse
import json
import re
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

METRICS = ("hit@1", "hit@5", "hit@20", "recall@20", "mrr")

#: run name → the `afr eval run` arguments after SOURCE
RUNS: dict[str, list[str]] = {
    "gold": ["--replay", "cypher", "--methods", "bm25,vss,hybrid"],
    "noisy": ["--replay", "cypher_noisy"],
    "offline": ["--offline", "--methods", "bm25,vss,hybrid"],
    "kar": ["--offline", "--method", "kar"],
    "sage": ["--offline", "--method", "sage"],
}

#: table row → (run, key of the run's metrics)
ROWS: dict[str, tuple[str, str]] = {
    "af, gold Cypher": ("gold", "1-8"),
    "af, noisy Cypher": ("noisy", "1-8"),
    "af, offline": ("offline", "1-8"),
    "af:paper, gold Cypher": ("gold", "af:paper"),
    "af:paper, noisy Cypher": ("noisy", "af:paper"),
    "af:paper, offline": ("offline", "af:paper"),
    "bm25, gold target type": ("gold", "method=bm25"),
    "vss, gold target type": ("gold", "method=vss"),
    "hybrid, gold target type": ("gold", "method=hybrid"),
    "bm25, offline target type": ("offline", "method=bm25"),
    "vss, offline target type": ("offline", "method=vss"),
    "hybrid, offline target type": ("offline", "method=hybrid"),
    "kar (offline expansion)": ("kar", "1-8"),
    "sage (offline)": ("sage", "1-8"),
}


@dataclass(frozen=True)
class QuestionSet:
    label: str
    db: str
    source: str

    def slug(self) -> str:
        return re.sub(r"[^a-z0-9]+", "-", self.label.lower()).strip("-")


def store_has_similarity_graph(db: str) -> bool:
    """Whether SAGE can run on the store (closed again before `afr eval` opens it)."""
    from afr.store import open_store
    from afr.vectors.similarity import has_similarity_graph

    store = open_store(db, read_only=True)
    try:
        return has_similarity_graph(store)
    finally:
        store.close()


def afr_command() -> str:
    """The `afr` on PATH, else the one beside this Python (a virtualenv not activated)."""
    return shutil.which("afr") or str(Path(sys.executable).with_name("afr"))


def run_eval(qs: QuestionSet, run: str, work: Path) -> dict | None:
    """The run's JSON, from ``work`` when an earlier invocation finished it."""
    kept = work / f"{qs.slug()}.{run}.json"
    if kept.exists():
        return json.loads(kept.read_text())
    if run == "sage" and not store_has_similarity_graph(qs.db):
        return None
    cmd = [afr_command(), "--no-progress", "--db", qs.db, "eval", "run", qs.source,
           *RUNS[run], "--reranker", "none", "--json", "--no-log"]
    print(f"… {qs.label}: {run}", file=sys.stderr, flush=True)
    done = subprocess.run(cmd, capture_output=True, text=True)
    if done.returncode != 0:
        raise SystemExit(f"{' '.join(cmd)} failed ({done.returncode}): "
                         f"{done.stderr.strip()[-500:]}")
    result = json.loads(done.stdout)
    kept.write_text(json.dumps(result))
    return result


def cells(result: dict | None, key: str) -> str:
    if result is None:
        return " | ".join(["no similarity graph"] + [""] * (len(METRICS) - 1))
    metrics = result["metrics"].get(key)
    if metrics is None:
        return " | ".join(["not in this run"] + [""] * (len(METRICS) - 1))
    return " | ".join(f"{100 * metrics[m]:.1f}" for m in METRICS)


def set_table(qs: QuestionSet, results: dict[str, dict | None]) -> list[str]:
    questions = next((r["done"] for r in results.values() if r), 0)
    lines = [f"### {qs.label} ({questions} questions; `{qs.db}`, `{qs.source}`)", "",
             "| method | " + " | ".join(METRICS) + " |", "|---|" + "---:|" * len(METRICS)]
    lines += [f"| {row} | {cells(results[run], key)} |" for row, (run, key) in ROWS.items()]
    return lines + [""]


def summary_table(sets: list[QuestionSet], results: dict[str, dict[str, dict | None]]) -> list[str]:
    lines = ["| method | " + " | ".join(qs.label for qs in sets) + " |",
             "|---|" + "---:|" * len(sets)]
    for row, (run, key) in ROWS.items():
        shown = []
        for qs in sets:
            metrics = (results[qs.label][run] or {}).get("metrics", {}).get(key)
            shown.append("—" if metrics is None
                         else f"{100 * metrics['hit@1']:.1f} / {100 * metrics['mrr']:.1f}")
        lines.append(f"| {row} | " + " | ".join(shown) + " |")
    return lines + [""]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--set", dest="sets", nargs=3, action="append", required=True,
                        metavar=("LABEL", "DB", "SOURCE"))
    parser.add_argument("--work", type=Path, required=True,
                        help="folder keeping each finished run's JSON")
    parser.add_argument("--runs", default=",".join(RUNS),
                        help="which runs (default: all of %(default)s)")
    parser.add_argument("--out", type=Path, help="also write the tables here")
    args = parser.parse_args()
    args.work.mkdir(parents=True, exist_ok=True)
    sets = [QuestionSet(*triple) for triple in args.sets]
    runs = args.runs.split(",")
    results = {qs.label: {run: (run_eval(qs, run, args.work) if run in runs else None)
                          for run in RUNS} for qs in sets}
    lines = ["hit@1 / MRR, percent", ""] + summary_table(sets, results)
    for qs in sets:
        lines += set_table(qs, results[qs.label])
    text = "\n".join(lines)
    print(text)
    if args.out:
        args.out.write_text(text + "\n")


if __name__ == "__main__":
    main()
