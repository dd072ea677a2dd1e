"""Scaling on this machine: one synthetic question set evaluated on DuckDB and on Spark with
1 and 2 executor cores (docs/scaling.md).

    python bench/bench_scaling.py [--nodes 300] [--questions 12] [--runs 2] [--work DIR]

Writes a synthetic SKB (``afr synth``), loads, embeds (the built-in hash embedder) and
indexes it once per store (DuckDB file; one Spark database read through
``spark://local[1]/…`` and ``spark://local[2]/…``), then runs ``afr eval run SKB --replay
cypher --offline`` ``--runs`` times per store. Prints, per store: the command's wall time
and the eval's own seconds per question (``eval_results.seconds``: the asks alone, without
the process and Spark session start), each the median of the runs. Every command runs
through the ``afr`` of this interpreter, nice'd by the caller; the work folder is removed
at the end unless ``--work`` names one.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

AFR = [sys.executable, "-m", "afr"]


def afr(args: list[str], env: dict[str, str]) -> tuple[float, str]:
    """Run one afr command; (wall seconds, stdout). A failure stops the bench."""
    start = time.perf_counter()
    done = subprocess.run([*AFR, *args], env=env, capture_output=True, text=True)
    wall = time.perf_counter() - start
    if done.returncode:
        raise SystemExit(f"afr {' '.join(args)} failed:\n{done.stderr}")
    return wall, done.stdout


def prepare(skb: Path, env: dict[str, str]) -> float:
    """Load, embed and index the SKB into the store ``env`` names; wall seconds."""
    total = 0.0
    for args in (["load", str(skb)], ["embed", "--model", "hash"],
                 ["index", "--similarity"]):
        total += afr(args, env)[0]
    return total


def per_question(env: dict[str, str], eval_id: str) -> tuple[int, float]:
    """(questions, mean seconds per question) of one eval, from its stored results."""
    _, out = afr(["sql", "--json", "SELECT count(*) AS n, avg(seconds) AS s FROM "
                  f"eval_results WHERE eval_id = '{eval_id}'"], env)
    row = json.loads(out)[0]
    return int(row["n"]), float(row["s"])


def last_eval_id(env: dict[str, str]) -> str:
    _, out = afr(["sql", "--json", "SELECT eval_id FROM eval_runs ORDER BY created_at DESC "
                  "LIMIT 1"], env)
    return json.loads(out)[0]["eval_id"]


def measure(name: str, env: dict[str, str], skb: Path, runs: int) -> dict[str, float]:
    walls, seconds, questions = [], [], 0
    for _ in range(runs):
        wall, _ = afr(["eval", "run", str(skb), "--replay", "cypher", "--offline"], env)
        questions, mean = per_question(env, last_eval_id(env))
        walls.append(wall)
        seconds.append(mean)
    row = {"store": name, "questions": questions, "eval_wall_s": statistics.median(walls),
           "s_per_question": statistics.median(seconds), "runs": runs}
    print(json.dumps(row), flush=True)
    return row


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--nodes", type=int, default=300)
    parser.add_argument("--questions", type=int, default=12)
    parser.add_argument("--runs", type=int, default=2)
    parser.add_argument("--work", type=Path)
    opts = parser.parse_args()
    work = opts.work or Path(tempfile.mkdtemp(prefix="afr-scaling-"))
    try:
        skb = work / "skb"
        base = {**os.environ, "XDG_CONFIG_HOME": str(work / "config"),
                "AFR_SPARK_WAREHOUSE": str(work / "warehouse")}
        for key in ("AFR_LLM_BASE_URL", "AFR_LLM_API_KEY", "OPENAI_API_KEY"):
            base.pop(key, None)
        afr(["synth", str(skb), "--like", "prime", "--nodes", str(opts.nodes),
             "--questions", str(opts.questions), "--seed", "3"], base)
        duck = {**base, "AFR_DB": str(work / "synth.duckdb")}
        spark1 = {**base, "AFR_DB": "spark://local[1]/synth"}
        spark2 = {**base, "AFR_DB": "spark://local[2]/synth"}
        print(json.dumps({"prepare_s": {"duckdb": prepare(skb, duck),
                                        "spark local[2]": prepare(skb, spark2)}}), flush=True)
        for name, env in (("duckdb", duck), ("spark local[1]", spark1),
                          ("spark local[2]", spark2)):
            measure(name, env, skb, opts.runs)
    finally:
        if opts.work is None:
            shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
