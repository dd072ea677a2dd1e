"""The whole pipeline at PRIME size, step by step as a user types it, on a DuckDB file and on
Spark ``local[2]``: wall time and peak memory per step, questions/minute of the eval
(docs/scaling.md, issue 24).

    python bench/bench_spark_prime.py [--nodes 130000] [--edges 8000000] [--questions 12]
        [--like prime] [--stores duckdb,spark] [--steps load,embed,index,ask,eval]
        [--batch 16] [--work DIR]

Writes a synthetic SKB (``afr synth --like prime --seed 3``, with ``--questions`` questions
carrying gold Cypher; a ``--work`` folder that already holds ``skb/skb.json`` is reused),
then runs, per store (``AFR_DB`` a DuckDB file, or ``spark://local[2]/prime``):

    afr load SKB
    afr embed --model hash --no-index
    afr index                      # BM25 only: af, bm25, hybrid and vss need no graph
    afr ask "FIRST QUESTION" --offline
    afr eval run SKB --replay cypher --offline --reranker none --methods af,bm25 --limit N

each as its own process, under the caller's ``nice`` (``--steps`` runs some of them:
a later run with the same ``--work`` carries on). Per step it prints one JSON line: wall
seconds; CPU seconds (user + system of the command and every process under it, a lower
bound: sampled); the peak resident memory of the whole process tree (afr, and on Spark its
JVM and Python workers: a grandchild, so the tree is sampled from /proc, every 0.2 s); the
load average before and after; for Spark the number of Spark jobs the step ran (counted in
Spark's event log, which this script turns on through ``PYSPARK_SUBMIT_ARGS``). The eval's
line adds questions/minute: questions over the command's wall time (the Spark session's
start included). Progress goes to stderr. The work folder is removed at the end unless
``--work`` names one.
"""

from __future__ import annotations

import argparse
import csv
import json
import os
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import asdict, dataclass
from pathlib import Path

AFR = [sys.executable, "-m", "afr"]
PAGE = os.sysconf("SC_PAGE_SIZE")
TICKS = os.sysconf("SC_CLK_TCK")
SAMPLE_S = 0.2


@dataclass(frozen=True)
class Step:
    store: str
    step: str
    wall_s: float
    cpu_s: float
    peak_rss_mb: float
    load_before: float
    load_after: float
    spark_jobs: int | None = None
    questions_per_min: float | None = None


def _children() -> dict[int, list[int]]:
    """Each process's children, from /proc/PID/stat (the parent is field 4)."""
    tree: dict[int, list[int]] = {}
    for entry in os.scandir("/proc"):
        if not entry.name.isdigit():
            continue
        try:
            with open(f"/proc/{entry.name}/stat", encoding="ascii") as fh:
                stat = fh.read()
        except OSError:  # gone since the listing
            continue
        parent = int(stat.rsplit(")", 1)[1].split()[1])
        tree.setdefault(parent, []).append(int(entry.name))
    return tree


def tree_sample(root: int) -> tuple[int, dict[int, int]]:
    """Resident bytes of ``root`` and all its descendants now, and each one's CPU clock
    ticks so far (user + system, its own: a child's are counted as the child)."""
    tree, todo, rss, ticks = _children(), [root], 0, {}
    while todo:
        pid = todo.pop()
        todo.extend(tree.get(pid, []))
        try:
            with open(f"/proc/{pid}/statm", encoding="ascii") as fh:
                rss += int(fh.read().split()[1]) * PAGE
            with open(f"/proc/{pid}/stat", encoding="ascii") as fh:
                fields = fh.read().rsplit(")", 1)[1].split()
        except OSError:  # gone since the listing
            continue
        ticks[pid] = int(fields[11]) + int(fields[12])  # utime, stime
    return rss, ticks


def run_sampled(args: list[str], env: dict[str, str]) -> tuple[float, float, int, str]:
    """Run one afr command; (wall seconds, CPU seconds of its process tree, peak tree RSS
    in bytes, stdout). A failure stops the bench with the command's stderr. Both come
    from samples every SAMPLE_S: the JVM that pyspark starts is not waited for by afr, so
    no rusage holds its CPU; the CPU seconds are a lower bound (each process's last
    SAMPLE_S, and processes shorter than that, are missed)."""
    start = time.perf_counter()
    proc = subprocess.Popen([*AFR, *args], env=env, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)
    peak, ticks = [0], {}
    done = threading.Event()

    def sample() -> None:
        while not done.wait(SAMPLE_S):
            rss, now = tree_sample(proc.pid)
            peak[0] = max(peak[0], rss)
            ticks.update(now)

    sampler = threading.Thread(target=sample, daemon=True)
    sampler.start()
    out, err = proc.communicate()
    wall = time.perf_counter() - start
    done.set()
    sampler.join()
    if proc.returncode:
        raise SystemExit(f"afr {' '.join(args)} failed ({proc.returncode}):\n{err[-4000:]}")
    return wall, sum(ticks.values()) / TICKS, peak[0], out


def load_average() -> float:
    return os.getloadavg()[0]


def spark_jobs(event_dir: Path) -> int:
    """Spark jobs started, counted in the event logs written to ``event_dir``."""
    jobs = 0
    for log in (p for p in event_dir.rglob("*") if p.is_file()):
        with open(log, encoding="utf-8", errors="replace") as fh:
            jobs += sum('"Event":"SparkListenerJobStart"' in line for line in fh)
    return jobs


def step(store: str, name: str, args: list[str], env: dict[str, str], work: Path,
         questions: int | None = None) -> Step:
    print(f"{store}: afr {' '.join(args)} …", file=sys.stderr, flush=True)
    env = dict(env)
    events = None
    if env["AFR_DB"].startswith("spark://"):
        events = work / "events" / f"{store}-{name}"
        shutil.rmtree(events, ignore_errors=True)  # a run with the same --work: its own jobs
        events.mkdir(parents=True)
        env["PYSPARK_SUBMIT_ARGS"] = (  # one plain-text log: Spark 4 compresses and rolls
            f"--conf spark.eventLog.enabled=true --conf spark.eventLog.dir=file://{events} "
            "--conf spark.eventLog.compress=false "
            "--conf spark.eventLog.rolling.enabled=false pyspark-shell")
    before = load_average()
    wall, cpu, peak, _ = run_sampled(args, env)
    row = Step(store, name, round(wall, 1), round(cpu, 1), round(peak / 2**20), before,
               load_average(),
               spark_jobs(events) if events else None,
               round(questions * 60 / wall, 2) if questions else None)
    print(json.dumps(asdict(row)), flush=True)
    return row


def first_question(skb: Path) -> str:
    with open(skb / "questions.csv", encoding="utf-8", newline="") as fh:
        return next(csv.DictReader(fh))["query"]


STEPS = ("load", "embed", "index", "ask", "eval")


def pipeline(store: str, env: dict[str, str], skb: Path, work: Path, n: int,
             steps: list[str]) -> None:
    """The steps of one store, each a command as a user types it."""
    commands = {
        "load": ["load", str(skb)],
        "embed": ["embed", "--model", "hash", "--no-index"],
        "index": ["index"],
        "ask": ["ask", first_question(skb), "--offline"],
        "eval": ["eval", "run", str(skb), "--replay", "cypher", "--offline", "--reranker",
                 "none", "--methods", "af,bm25", "--limit", str(n)]}
    for name in steps:
        step(store, name, commands[name], env, work, questions=n if name == "eval" else None)


def synth(skb: Path, opts: argparse.Namespace, env: dict[str, str]) -> None:
    if (skb / "skb.json").exists():
        print(f"reusing {skb}", file=sys.stderr, flush=True)
        return
    print(f"afr synth {skb} …", file=sys.stderr, flush=True)
    wall, _, peak, out = run_sampled(
        ["synth", str(skb), "--like", opts.like, "--nodes", str(opts.nodes), "--edges",
         str(opts.edges), "--questions", str(opts.questions), "--seed", "3"], env)
    print(json.dumps({"store": "-", "step": "synth", "wall_s": round(wall, 1),
                      "peak_rss_mb": round(peak / 2**20), "out": out.strip()}), flush=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--nodes", type=int, default=130_000)
    parser.add_argument("--edges", type=int, default=8_000_000)
    parser.add_argument("--questions", type=int, default=12)
    parser.add_argument("--like", choices=["prime", "mag", "amazon"], default="prime")
    parser.add_argument("--stores", default="duckdb,spark")
    parser.add_argument("--batch", type=int, default=16, help="store.spark_batch")
    parser.add_argument("--steps", default=",".join(STEPS),
                        help="the steps to run, in order (a later run with the same --work "
                             "carries on: an interrupted embed or index resumes)")
    parser.add_argument("--work", type=Path)
    opts = parser.parse_args()
    work = opts.work or Path(tempfile.mkdtemp(prefix="afr-prime-"))
    try:
        skb = work / "skb"
        base = {**os.environ, "XDG_CONFIG_HOME": str(work / "config"),
                "AFR_SPARK_WAREHOUSE": str(work / "warehouse"),
                "AFR_SPARK_BATCH": str(opts.batch)}
        for key in ("AFR_LLM_BASE_URL", "AFR_LLM_API_KEY", "OPENAI_API_KEY", "AFR_DB"):
            base.pop(key, None)
        synth(skb, opts, base)
        urls = {"duckdb": str(work / f"{opts.like}.duckdb"),
                "spark": f"spark://local[2]/{opts.like}"}
        for store in opts.stores.split(","):
            pipeline(store, {**base, "AFR_DB": urls[store]}, skb, work, opts.questions,
                     opts.steps.split(","))
    finally:
        if opts.work is None:
            shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
