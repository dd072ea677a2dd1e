"""Check every gold answer of bench/real/questions.csv against the loaded store.

    python bench/real/verify_questions.py STORE.duckdb [--show] [--only ID,ID]

Each question has a query in gold_checks.sql (a block headed by ``-- ID``) that computes
its gold answers from the graph and the texts, independently of the question's Cypher; this
script runs them against a DuckDB store that holds the SKB built by build_skb.py (opened
read-only) and reports every question whose answer_ids differ. ``--show`` prints each gold
node's name and text, for reading the answers by eye.

The queries see two views with the SKB's own ids: ``n(id, type, name, text, attrs)`` and
``e(s, t, d)`` (source, edge type, target), and a table macro ``kinds(root)``: every node
below ``root`` through is-a-kind-of edges (nouns or verbs), transitively, without the root.
"""

from __future__ import annotations

import argparse
import csv
import json
import re
import sys
from pathlib import Path

import duckdb

HERE = Path(__file__).resolve().parent

SETUP = [
    "CREATE TEMP TABLE n AS SELECT ext_id AS id, type, name, text, attrs FROM store.nodes",
    "CREATE TEMP TABLE e AS SELECT s.ext_id AS s, x.type AS t, d.ext_id AS d "
    "FROM store.edges x JOIN store.nodes s ON s.id = x.src JOIN store.nodes d ON d.id = x.dst",
    "CREATE TEMP MACRO kinds(root) AS TABLE "
    "WITH RECURSIVE h(id) AS (SELECT root UNION "
    "SELECT e.s FROM e JOIN h ON e.d = h.id WHERE e.t IN ('noun_hypernym', 'verb_hypernym')) "
    "SELECT id FROM h WHERE id <> root",
]


def read_checks(path: Path) -> dict[str, str]:
    checks: dict[str, str] = {}
    current = None
    for line in path.read_text(encoding="utf-8").splitlines():
        m = re.match(r"^-- (\w+)\s*$", line)
        if m:
            current = m.group(1)
            checks[current] = ""
        elif current is not None and line.strip():
            checks[current] += line + "\n"
    return {k: v.strip().rstrip(";") for k, v in checks.items()}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("store", help="DuckDB store holding the SKB (afr load)")
    ap.add_argument("--questions", type=Path, default=HERE / "questions.csv")
    ap.add_argument("--checks", type=Path, default=HERE / "gold_checks.sql")
    ap.add_argument("--show", action="store_true", help="print every gold node's text")
    ap.add_argument("--only", help="comma-separated question ids")
    args = ap.parse_args(argv)

    con = duckdb.connect()
    con.execute("ATTACH ? AS store (READ_ONLY)", [args.store])
    for stmt in SETUP:
        con.execute(stmt)
    checks = read_checks(args.checks)
    with open(args.questions, newline="", encoding="utf-8") as f:
        rows = list(csv.DictReader(f))
    only = set(args.only.split(",")) if args.only else None
    bad = 0
    for r in rows:
        qid = r["id"]
        if only and qid not in only:
            continue
        gold = json.loads(r["answer_ids"])
        if qid not in checks:
            print(f"{qid}: no check query")
            bad += 1
            continue
        found = {row[0] for row in con.execute(checks[qid]).fetchall()}
        missing, extra = sorted(set(gold) - found), sorted(found - set(gold))
        status = "ok" if not missing and not extra else "MISMATCH"
        if status != "ok":
            bad += 1
        if status != "ok" or args.show:
            print(f"{qid} [{r['kind']}/{r['split']}] {status}: {r['query']}")
            if missing:
                print(f"    gold but not found: {missing}")
            if extra:
                print(f"    found but not gold: {extra}")
        if args.show:
            for g in gold:
                row = con.execute("SELECT type, name, text FROM n WHERE id = ?", [g]).fetchone()
                if row is None:
                    print(f"    - {g}: NOT A NODE")
                else:
                    print(f"    - {g} ({row[0]}) {row[1]}: {(row[2] or '')[:300]}")
    print(f"{len(rows) if not only else len(only)} question(s) checked, {bad} mismatch(es)")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
