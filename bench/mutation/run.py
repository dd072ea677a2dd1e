"""A sampled mutation-testing pass with cosmic-ray over the grounding, the Cypher reader
and the ranking modules, each against the tests that cover it (bench/mutation/README.md).

    python bench/mutation/run.py TREE OUT.json [--per-group N] [--seed S] [--groups ...]

TREE is a copy of the repository (code and tests: cosmic-ray mutates its files in place,
one mutant at a time, and restores them), installed in the running Python's environment
(``pip install -e TREE[test] cosmic-ray``). The same seed picks the same mutants in two
trees whose mutated modules are alike, so code before and after a change of its tests
can be compared. Run it where nothing else uses TREE.
"""

from __future__ import annotations

import argparse
import json
import random
import re
import subprocess
import sys
import time
from pathlib import Path

# module paths to mutate → the tests that cover them (run with -x: a mutant is killed at
# the first failing test)
GROUPS = {
    "ground": (["afr/ground"],
               ["tests/test_grounding.py", "tests/test_edge_direction.py", "tests/test_names.py",
                "tests/test_provenance.py", "tests/test_grounding_property.py",
                "tests/test_grounding_oracle.py"]),
    "cypher": (["afr/cypher"],
               ["tests/test_cypher_parser.py", "tests/test_cypher_fix.py",
                "tests/test_cypher_repair.py", "tests/test_cypher_corpus.py",
                "tests/test_cypher_fuzz.py", "tests/test_grounding.py"]),
    "ranking": (["afr/methods/af/ranking.py", "afr/methods/af/paper_ranking.py",
                 "afr/methods/af/hybrid_ranking.py", "afr/retrieval/fusion.py"],
                ["tests/test_fusion.py", "tests/test_same_answers.py",
                 "tests/test_golden_lists.py", "tests/test_pipeline.py"]),
}
# The property tests scaled to a mutant's budget, with a fixed seed: every mutant sees the
# same cases (the old suite read AFR_PROPERTY_EXAMPLES, the new one the other three).
ENV = "AFR_PROPERTY_EXAMPLES=30 AFR_PROPERTY_GRAPHS=2 AFR_PROPERTY_QUERIES=40 AFR_PROPERTY_SEED=1"


def config(tree: Path, group: str, basetemp: str) -> Path:
    modules, tests = GROUPS[group]
    tests = [t for t in tests if (tree / t).exists()]
    command = (f"env {ENV} {sys.executable} -m pytest -x -q -p no:cacheprovider "
               f"--basetemp={basetemp} {' '.join(tests)}")
    path = tree / f"cosmic-ray-{group}.toml"
    path.write_text(
        "[cosmic-ray]\n"
        f"module-path = {json.dumps(modules)}\n"
        "timeout = 900.0\n"
        "excluded-modules = []\n"
        f"test-command = {json.dumps(command)}\n\n"
        "[cosmic-ray.distributor]\nname = \"local\"\n", encoding="utf-8")
    return path


def keep_sample(session: Path, per_group: int, rng: random.Random,
                exclude: str | None = None) -> int:
    """Mark all but a sample of the session's mutants as skipped; the sample is drawn
    from the mutants sorted by (module, operator, occurrence), so it does not depend on
    the order cosmic-ray stored them in. ``exclude``: a regular expression of operators
    left out of the sample (e.g. ``BitOr``: in this code nearly always a type
    annotation's ``X | None``, which ``from __future__ import annotations`` never
    evaluates)."""
    from cosmic_ray.work_db import WorkDB, use_db
    from cosmic_ray.work_item import WorkerOutcome, WorkResult

    with use_db(str(session), WorkDB.Mode.open) as db:
        items = sorted(db.pending_work_items, key=lambda w: (
            str(w.mutations[0].module_path), w.mutations[0].operator_name,
            w.mutations[0].occurrence))
        pool = [w for w in items
                if not (exclude and re.search(exclude, w.mutations[0].operator_name))]
        chosen = {w.job_id for w in rng.sample(pool, min(per_group, len(pool)))}
        for item in items:
            if item.job_id not in chosen:
                db.set_result(item.job_id, WorkResult(output="not sampled",
                                                      worker_outcome=WorkerOutcome.SKIPPED))
        return len(items)


def outcomes(session: Path) -> list[dict]:
    dumped = subprocess.run(["cosmic-ray", "dump", str(session)], capture_output=True,
                            text=True, check=True).stdout
    out = []
    for line in dumped.splitlines():
        item, result = json.loads(line)
        if result is None or result["worker_outcome"] == "skipped":
            continue
        mutation = item["mutations"][0]
        out.append({"module": mutation["module_path"], "operator": mutation["operator_name"],
                    "occurrence": mutation["occurrence"],
                    "line": mutation["start_pos"][0], "outcome": result["test_outcome"],
                    "worker": result["worker_outcome"]})
    return out


def run_group(tree: Path, group: str, per_group: int, seed: int,
              exclude: str | None = None) -> dict:
    cfg = config(tree, group, f"/tmp/pt-mutation-{tree.name}-{group}")
    session = tree / f"cosmic-ray-{group}.sqlite"
    session.unlink(missing_ok=True)
    subprocess.run(["cosmic-ray", "init", str(cfg), str(session)], cwd=tree, check=True)
    total = keep_sample(session, per_group, random.Random(f"{seed}:{group}"), exclude)
    started = time.perf_counter()
    subprocess.run(["cosmic-ray", "exec", str(cfg), str(session)], cwd=tree, check=True)
    ran = outcomes(session)
    survived = [m for m in ran if m["outcome"] == "survived"]
    return {"mutants": total, "sampled": len(ran), "survived": len(survived),
            "killed": sum(m["outcome"] == "killed" for m in ran),
            "incompetent": sum(m["outcome"] == "incompetent" for m in ran),
            "survival_rate": round(len(survived) / len(ran), 3) if ran else None,
            "minutes": round((time.perf_counter() - started) / 60, 1), "results": ran}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("tree", type=Path)
    parser.add_argument("out", type=Path)
    parser.add_argument("--per-group", type=int, default=15)
    parser.add_argument("--seed", type=int, default=25)
    parser.add_argument("--groups", nargs="+", default=list(GROUPS), choices=list(GROUPS))
    parser.add_argument("--exclude-operators", metavar="REGEX")
    args = parser.parse_args()
    report = {"tree": str(args.tree), "seed": args.seed, "per_group": args.per_group,
              "exclude_operators": args.exclude_operators, "groups": {}}
    for group in args.groups:
        report["groups"][group] = run_group(args.tree.resolve(), group, args.per_group,
                                            args.seed, args.exclude_operators)
        args.out.write_text(json.dumps(report, indent=1), encoding="utf-8")
        summary = {k: v for k, v in report["groups"][group].items() if k != "results"}
        print(group, summary, flush=True)


if __name__ == "__main__":
    main()
