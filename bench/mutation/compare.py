"""Hand-picked mutations, each run against the tests as they were and as they are.

    python bench/mutation/compare.py OLD_TESTS_TREE [NAME ...] [--out FILE.json]

OLD_TESTS_TREE holds the earlier tests (``git archive REV tests pyproject.toml README.md
docs | tar -x -C DIR``); the code is this checkout's, installed editable in the running
environment. Each mutation replaces one exact piece of text in one file of this checkout,
runs the old and the new selection of tests, and restores the file (also when
interrupted). A mutation is caught when its selection fails.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


@dataclass(frozen=True)
class Mutation:
    path: str
    old: str
    new: str
    old_tests: tuple[str, ...]  # in OLD_TESTS_TREE
    new_tests: tuple[str, ...]  # in this checkout


GROUNDING_OLD = ("tests/test_grounding.py", "tests/test_edge_direction.py", "tests/test_names.py",
                 "tests/test_grounding_property.py", "tests/test_provenance.py")
GROUNDING_NEW = (*GROUNDING_OLD, "tests/test_grounding_oracle.py")
# the old suite's checks of provenance (its SQL-against-oracle half never looked at it)
PROVENANCE_OLD = ("tests/test_provenance.py",
                  "tests/test_grounding_property.py::test_provenance_equals_brute_force")
PROVENANCE_NEW = ("tests/test_provenance.py", "tests/test_grounding_oracle.py",
                  "tests/test_grounding_property.py")

MUTATIONS = {
    # an untyped pattern follows its arrow when any edge type is directed, not all
    "directed-any": Mutation(
        "afr/ground/query.py", "return all(flags.values()) if flags else self.default",
        "return any(flags.values()) if flags else self.default", GROUNDING_OLD, GROUNDING_NEW),
    # provenance levels ignore exact name matches (the fourth of four enters at 5, not 1)
    "provenance-lead": Mutation(
        "afr/ground/run.py",
        "levels = candidate_levels(len(sym.candidates), schedule, sym.lead)\n        out.append(",
        "levels = candidate_levels(len(sym.candidates), schedule)\n        out.append(",
        PROVENANCE_OLD, PROVENANCE_NEW),
    # a candidate linking an answer through two triplets is listed twice
    "provenance-twice": Mutation(
        "afr/ground/run.py",
        "if len(found) < WITNESSES_PER_LINK and all(w[\"node\"] != cand for w in found):",
        "if len(found) < WITNESSES_PER_LINK:", PROVENANCE_OLD, PROVENANCE_NEW),
    # item 3 of issue 25: checks that could not fail
    "listwise-ignored": Mutation(  # the listwise reply is read, then the prior order kept
        "afr/pipeline/rerank.py", "def parse_listwise(reply: str, prior: list[int]) -> list[int]:",
        "def parse_listwise(reply: str, prior: list[int]) -> list[int]:\n    return list(prior)",
        ("tests/test_pipeline.py", "tests/test_hardening_prompt.py"),
        ("tests/test_pipeline.py", "tests/test_hardening_prompt.py")),
    "sql-swallows-writes": Mutation(  # a write is skipped silently instead of refused
        "cli/store_commands.py",
        "    columns, rows = store.query_with_columns(statement, values,\n",
        "    columns, rows = ([], []) if statement.split()[0].upper() in ('DELETE', 'DROP') "
        "else store.query_with_columns(statement, values,\n",
        ("tests/test_hardening_injection.py::test_sql_is_read_only_on_both_stores",),
        ("tests/test_hardening_injection.py::test_sql_is_read_only_on_both_stores",)),
    "recall-denominator": Mutation(  # recall@20 divides by at least two gold answers
        "afr/evaluate/metrics.py", "/ len(gold_set) if gold_set else 0.0",
        "/ max(len(gold_set), 2) if gold_set else 0.0",
        ("tests/test_eval_store.py",), ("tests/test_eval_store.py",)),
    "eval-log-reversed": Mutation(  # eval_results.ranked logged in reverse
        "afr/evaluate/runner.py", '"ranked": json.dumps(answered.lists.get(FINAL, [])),',
        '"ranked": json.dumps(answered.lists.get(FINAL, [])[::-1]),',
        ("tests/test_trust_cli.py::test_readme_sql_examples_run_on_both_stores",),
        ("tests/test_trust_cli.py::test_readme_sql_examples_run_on_both_stores",)),
    # item 4: a load that commits its rows before its indexes, inside what should be
    # one transaction
    "load-commits-early": Mutation(
        "afr/load/loader.py", '                phases.next("building indexes")',
        '                store.execute("COMMIT")\n                store.execute("BEGIN TRANSACTION")'
        '\n                phases.next("building indexes")',
        ("tests/test_hardening_db.py::test_load_killed_half_way_keeps_the_previous_state"
         "[duckdb]",),
        ("tests/test_hardening_db.py::"
         "test_load_killed_inside_its_transaction_keeps_the_previous_state[duckdb]",)),
}


def run(tree: Path, tests: tuple[str, ...]) -> dict:
    env = {**os.environ, "AFR_PROPERTY_SEED": os.environ.get("AFR_PROPERTY_SEED", "1")}
    started = time.perf_counter()
    done = subprocess.run([sys.executable, "-m", "pytest", "-x", "-q", "-p", "no:cacheprovider",
                           f"--basetemp=/tmp/pt-compare-{os.getpid()}", *tests],
                          cwd=tree, env=env, capture_output=True, text=True)
    failed = [line for line in done.stdout.splitlines() if line.startswith("FAILED")]
    return {"caught": done.returncode != 0, "exit": done.returncode, "failed": failed[:3],
            "summary": done.stdout.strip().splitlines()[-1:] if done.stdout else [],
            "seconds": round(time.perf_counter() - started)}


def apply(m: Mutation) -> str:
    path = ROOT / m.path
    text = path.read_text(encoding="utf-8")
    if text.count(m.old) != 1:
        raise SystemExit(f"{m.path}: the text to mutate is not there exactly once: {m.old}")
    path.write_text(text.replace(m.old, m.new), encoding="utf-8")
    return text


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("old_tree", type=Path)
    parser.add_argument("names", nargs="*", default=list(MUTATIONS))
    parser.add_argument("--out", type=Path)
    args = parser.parse_args()
    report = {}
    for name in args.names:
        m = MUTATIONS[name]
        original = apply(m)
        try:
            report[name] = {"file": m.path, "old": run(args.old_tree.resolve(), m.old_tests),
                            "new": run(ROOT, m.new_tests)}
        finally:
            (ROOT / m.path).write_text(original, encoding="utf-8")
        print(name, json.dumps(report[name]), flush=True)
        if args.out:
            args.out.write_text(json.dumps(report, indent=1), encoding="utf-8")


if __name__ == "__main__":
    main()
