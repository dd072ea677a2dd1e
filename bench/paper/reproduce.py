"""Re-run one of the paper's tables on a STaRK-format question set and print afr's numbers
in the paper's layout, each row beside the published one (``published.json``, transcribed
from the paper with the table and row of every number).

    python bench/paper/reproduce.py TABLE --db STORE --questions SOURCE --dataset NAME
        [--preset paper|reference] [--replay COLUMN] [--limit N] [-- AFR_EVAL_ARGS …]

TABLE is one of 3, 5, 7, 15, 17, 18, 19, 21, 22. SOURCE is what ``afr eval run`` takes (an
``afr synth`` directory, a STaRK QA folder, a questions.csv). NAME (prime, mag, amazon)
picks the published column. Every run goes through the ``afr`` command line (``afr eval
run … --json --no-log``), so what is printed is what a user gets; the commands are echoed
on stderr. Tables 7, 15, 17, 21 and 22 vary what an LLM does: without one configured they
stop with a message (a replayed Cypher makes step 2's prompt moot). Which tables cannot
run at all, and why, is in docs/method.md.
"""

from __future__ import annotations

import argparse
import json
import shlex
import subprocess
import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

PUBLISHED = json.loads((Path(__file__).parent / "published.json").read_text("utf-8"))
Summary = dict[str, Any]


@dataclass(frozen=True)
class Row:
    label: str  # the published row's key
    args: tuple[str, ...]  # afr eval run arguments of this row's run
    values: Callable[[Summary], list[float | None]]  # afr's numbers from the summary
    shared: str | None = None  # rows with the same key reuse one run


def _metrics(variant: str, names: Sequence[str]) -> Callable[[Summary], list[float | None]]:
    def pick(summary: Summary) -> list[float | None]:
        found = summary["metrics"].get(variant)
        return [None if found is None else 100 * found[n] for n in names]
    return pick


def _grounding(summary: Summary) -> list[float | None]:
    g = summary.get("grounding") or {}
    final = summary["metrics"]["1-8"]
    return [g.get("processed"), g.get("precision"), g.get("specificity"), g.get("retrieved"),
            g.get("hit@20"), g.get("recall@20"), 100 * final["hit@20"],
            100 * final["recall@20"]]


def _vss_only(summary: Summary) -> list[float | None]:
    vss = summary["metrics"]["1+7"]
    return [0.0, None, None, None, None, None, 100 * vss["hit@20"], 100 * vss["recall@20"]]


def _overflows(summary: Summary) -> list[float | None]:
    llm, n = summary["llm"], max(summary["done"], 1)
    flows = llm.get("overflows") or {}
    return [100 * flows.get("full", 0) / n, 100 * flows.get("related", 0) / n,
            llm.get("input_per_question"), llm.get("output_per_question")]


def _types(summary: Summary) -> list[float | None]:
    t = summary.get("target_types") or {}
    return [(t.get(s) or {}).get(k) for s in ("step1", "step2") for k in ("invalid", "wrong")]


HIT20 = ("hit@20", "recall@20")


def rows(table: str, dataset: str) -> list[Row]:
    """The runs of ``table`` and how each row reads its numbers."""
    if table == "3":
        return [Row("steps 1-8", (), _metrics("1-8", ("hit@1", "hit@5", "mrr")))]
    if table == "5":
        names = ("hit@1", "hit@20", "recall@20", "mrr")
        return [Row(v, (), _metrics(v, names), shared="one") for v in
                ("1+7", "1-5", "1-6", "1-7", "1-8")]
    if table == "18":
        return [Row("no filter", ("--mode", "lenient", "--no-edge-types"), _metrics("1-8", HIT20)),
                Row("relation types", ("--mode", "lenient", "--edge-types"),
                    _metrics("1-8", HIT20)),
                Row("node types", ("--mode", "strict", "--no-edge-types"),
                    _metrics("1-8", HIT20)),
                Row("both", ("--mode", "strict", "--edge-types"), _metrics("1-8", HIT20))]
    if table == "19":
        out = [Row("0", ("--l-max", "100"), _vss_only, shared="100")]
        return out + [Row(v, ("--l-max", v), _grounding, shared=v)
                      for v in ("1", "2", "3", "10", "33", "100", "333")]
    if table == "21":
        hidden = {"mag": "field_of_study", "amazon": "category"}.get(dataset, "field_of_study")
        return [Row("none hidden", (), _metrics("1-8", HIT20)),
                Row("hidden", ("--hide-type", hidden), _metrics("1-8", HIT20))]
    if table in ("22", "7"):
        pick = _metrics("1-8", ("hit@1", "hit@5", "mrr")) if table == "22" else _overflows
        return [Row(r, ("--reranker", r), pick) for r in ("pointwise", "listwise", "pairwise")]
    if table in ("15", "17"):
        pick = _types if table == "15" else _metrics("1-8", HIT20)
        return [Row(e, ("--effort", f"target={e}", "--effort", f"cypher={e}"), pick)
                for e in ("none", "low", "medium", "high")]
    raise SystemExit(f"reproduce.py: no table {table!r} (known: "
                     f"{', '.join(PUBLISHED['tables'])})")


NEEDS_LLM = {"7", "15", "17", "21", "22"}


def run_eval(afr: Sequence[str], db: str, source: str, args: Sequence[str]) -> Summary:
    command = [*afr, "--db", db, "eval", "run", source, "--json", "--no-log", *args]
    print("$ " + shlex.join(command), file=sys.stderr)
    done = subprocess.run(command, capture_output=True, text=True, check=False)
    if done.returncode != 0:
        raise SystemExit(f"reproduce.py: afr failed ({done.returncode}):\n{done.stderr}")
    return json.loads(done.stdout)


def _cell(value: float | None) -> str:
    return "-" if value is None else f"{value:.1f}"


def render(table: str, dataset: str, found: dict[str, list[float | None]]) -> str:
    spec = PUBLISHED["tables"][table]
    columns = spec["columns"]
    lines = [spec["title"] + f" — {dataset}", "", "row".ljust(16) + "  " + "  ".join(
        f"{c:>13}" for c in columns) + "    (afr / paper)"]
    for label, values in found.items():
        paper = (spec["rows"].get(label) or {}).get(dataset) or [None] * len(columns)
        lines.append(label.ljust(16) + "  " + "  ".join(
            f"{_cell(a) + ' / ' + _cell(p):>13}" for a, p in zip(values, paper, strict=False)))
    cites = [(spec["rows"].get(label) or {}).get("cite") for label in found]
    lines += ["", "paper: " + "; ".join(dict.fromkeys(c for c in cites if c)),
              PUBLISHED["source"]]
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("table")
    parser.add_argument("--db", required=True)
    parser.add_argument("--questions", required=True)
    parser.add_argument("--dataset", choices=("prime", "mag", "amazon"), required=True)
    parser.add_argument("--preset", choices=("paper", "reference"))
    parser.add_argument("--replay")
    parser.add_argument("--limit", type=int)
    parser.add_argument("--afr", default="afr", help="the afr command [default: afr]")
    argv = list(sys.argv[1:] if argv is None else argv)
    cut = argv.index("--") if "--" in argv else len(argv)
    args, extra = parser.parse_args(argv[:cut]), argv[cut + 1:]  # after --: afr's own
    common = [*(("--preset", args.preset) if args.preset else ()),
              *(("--replay", args.replay) if args.replay else ()),
              *(("--limit", str(args.limit)) if args.limit else ()), *extra]
    if args.table in NEEDS_LLM and ("--offline" in common or args.replay and args.table == "21"):
        raise SystemExit(f"reproduce.py: table {args.table} varies what the LLM does: run it "
                         "with an LLM configured and without --offline"
                         + (" or --replay" if args.table == "21" else ""))
    runs: dict[str, Summary] = {}
    found: dict[str, list[float | None]] = {}
    for row in rows(args.table, args.dataset):
        key = row.shared or row.label
        if key not in runs:
            runs[key] = run_eval(shlex.split(args.afr), args.db, args.questions,
                                 [*common, *row.args])
        found[row.label] = row.values(runs[key])
    print(render(args.table, args.dataset, found))
    return 0


if __name__ == "__main__":
    sys.exit(main())
