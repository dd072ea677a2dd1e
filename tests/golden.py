"""Golden ranked lists: every answer of afr's evaluation runs, captured through the command line.

The reference for refactors that must not change any answer. For each store (a DuckDB
file, and PostgreSQL with pgvector in exact mode), each SKB (the bundled demo, and small
PRIME-like and MAG-like sets made by ``afr synth``) and each eval run of ``RUNS``
(replayed gold and noisy Cypher, the offline formalizer, and a scripted LLM for steps 1–2
with listwise, pointwise and pairwise reranking; every method, both rankings, alpha and
l_max sweeps), the capture keeps, under keys ``SET/RUN/QUESTION_ID/…``:

- ``…/VARIANT``: the ranked ext ids of each list in ``eval_variants`` (``1+7``, ``1-5``,
  ``1-6``, ``1-7``, ``1-8``, ``vss``, ``bm25``, ``hybrid``, ``af:paper``, ``af:hybrid``,
  ``alpha=…``, ``l_max=…``, ``reranker=…``, ``method=…``);
- ``…/answers``: the question's logged final list (``run_answers`` of
  ``eval_results.run_id``), one ``[ext_id, source, level, rerank_position]`` per answer,
  best first; ``…/method=M/answers`` the same for the run a method sweep logged;
- ``…/question``: ``[status, outcome, target_type]`` (``eval_results``, ``runs``).

Everything goes through ``afr`` (click's CliRunner on ``afr.cli.main.cli``): ``afr synth``,
``load``, ``embed``, ``index --similarity``, ``eval run`` and ``sql --json`` over the store
tables (``eval_results``, ``eval_variants``, ``runs``, ``run_answers``, ``nodes``); nothing
imports afr's internal modules, which a refactor may move. The PostgreSQL capture runs in a
child process (``--capture-postgres``, internal) while this process captures DuckDB.

``tests/data/golden/lists.json.gz`` holds the fingerprints of the input SKBs, DuckDB's lists
and, for PostgreSQL, only the keys whose value differs from DuckDB's (the stores agree on
all others; the few that differ did so at the commit the file was made from, and the test
holds them to that). It is generated once, from the commit whose answers are the
reference (with afr's own files unmodified), and is not regenerated to make the test pass:

    python tests/golden.py --regen

PostgreSQL comes from $AFR_TEST_DATABASE_URL, else from a pgserver started (and removed) for
the run. ``tests/test_golden_lists.py`` captures everything again and compares.
"""

from __future__ import annotations

import contextlib
import csv
import gzip
import hashlib
import html
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
import traceback
import uuid
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).parent))

from fake_openai import FakeOpenAI, Reply, prompt_text  # noqa: E402

GOLDEN_FILE = Path(__file__).parent / "data" / "golden" / "lists.json.gz"
FORMAT = 1
ALL_METHODS = "af,vss,bm25,hybrid,kar,sage,af+sage"
NO_RERANK = ("--reranker", "none")
REPO = Path(__file__).resolve().parent.parent


@dataclass(frozen=True)
class SkbSet:
    name: str
    synth: tuple[str, ...] | None  # `afr synth` arguments; None: the bundled demo


SETS = (
    SkbSet("demo", None),
    SkbSet("prime", ("--like", "prime", "--nodes", "2000", "--questions", "60", "--seed", "3",
                     "--noise", "0.3")),
    SkbSet("mag", ("--like", "mag", "--nodes", "1500", "--questions", "30", "--seed", "5",
                   "--noise", "0.5")),
)


@dataclass(frozen=True)
class Run:
    set: str
    name: str
    args: tuple[str, ...]  # `afr eval run SOURCE` options (--exact and --name are added)
    llm: bool = False  # ask the scripted LLM server (--llm-url, --llm-model)


# PostgreSQL answers an eval of more than 20 questions from in-memory matrices (as DuckDB
# always does), a smaller one with SQL over pgvector: both paths are here.
RUNS = (
    # the demo (22 questions)
    Run("demo", "cypher-methods", ("--replay", "cypher", *NO_RERANK, "--limit", "11",
                                   "--methods", ALL_METHODS)),
    Run("demo", "noisy-paper", ("--replay", "cypher_noisy", "--ranking", "paper", *NO_RERANK)),
    Run("demo", "offline", ("--offline",)),
    Run("demo", "llm-listwise", ("--reranker", "listwise"), llm=True),
    Run("demo", "llm-pairwise", ("--reranker", "pairwise", "--limit", "3",
                                 "--sweep", "reranker=pointwise"), llm=True),
    # the synthetic PRIME-like set (60 questions)
    Run("prime", "noisy-sweeps", ("--replay", "cypher_noisy", *NO_RERANK, "--limit", "30",
                                  "--sweep", "alpha=0,0.5,1", "--sweep", "l_max=10,30")),
    Run("prime", "cypher-paper-methods", ("--replay", "cypher", "--ranking", "paper",
                                          *NO_RERANK, "--limit", "12",
                                          "--methods", ALL_METHODS)),
    Run("prime", "offline", ("--offline", "--limit", "30", "--methods", "af+sage")),
    Run("prime", "llm-listwise", ("--reranker", "listwise", "--limit", "20"), llm=True),
    Run("prime", "llm-pairwise", ("--reranker", "pairwise", "--limit", "2"), llm=True),
    # a small synthetic MAG-like set (30 questions, answers are papers)
    Run("mag", "noisy-methods", ("--replay", "cypher_noisy", *NO_RERANK, "--limit", "15",
                                 "--methods", "kar,sage,af+sage")),
    Run("mag", "offline-paper", ("--offline", "--ranking", "paper", "--limit", "15")),
    Run("mag", "llm-listwise", ("--reranker", "listwise", "--limit", "10"), llm=True),
)

# Variables that would steer afr away from the settings of the capture.
_CLEARED_ENV = ("AFR_DB", "AFR_SCHEMA", "AFR_LLM_BASE_URL", "AFR_LLM_MODEL", "AFR_LLM_API_KEY",
                "OPENAI_API_KEY", "AFR_LLM_TIMEOUT", "AFR_EMBED_BASE_URL", "AFR_EMBED_API_KEY",
                "AFR_MEMORY_VECTORS_MB", "AFR_DUCKDB_MEMORY_MB", "AFR_PG_INDEX_MEMORY_MB",
                "AFR_DEBUG", "XDG_CONFIG_HOME")


# --- the command line -------------------------------------------------------------------

class Afr:
    """``afr`` against one store, in this process (click's CliRunner), isolated from the
    caller's settings file and environment."""

    def __init__(self, work: Path, db: str | None = None, schema: str | None = None) -> None:
        from afr.cli.main import cli
        from click.testing import CliRunner

        self.cli = cli
        try:
            self.runner = CliRunner(mix_stderr=False)  # click < 8.2
        except TypeError:
            self.runner = CliRunner()  # click >= 8.2 keeps stderr apart by itself
        config = work / "empty-settings.toml"
        config.touch()
        self.env: dict[str, str | None] = {name: None for name in _CLEARED_ENV}
        self.env.update(AFR_CONFIG=str(config), AFR_CACHE_DIR=str(work / "cache"))
        self.base = ["--no-progress"]
        if db is not None:
            self.base += ["--db", db]
        if schema is not None:
            self.base += ["--schema", schema]

    def __call__(self, *args: str) -> str:
        result = self.runner.invoke(self.cli, [*self.base, *args], env=self.env)
        if result.exit_code != 0:
            detail = ""
            if result.exc_info is not None and not isinstance(result.exception, SystemExit):
                detail = "".join(traceback.format_exception(*result.exc_info))
            raise AssertionError(f"afr {' '.join(args)} exited {result.exit_code}\n"
                                 f"stdout: {result.stdout[-2000:]}\n"
                                 f"stderr: {result.stderr[-2000:]}\n{detail}")
        return result.stdout

    def sql(self, query: str, **params: Any) -> list[dict[str, Any]]:
        args = ["sql", query, "--json"]
        for name, value in params.items():  # as JSON: an id of digits stays text
            args += ["--param", f"{name}={json.dumps(value)}"]
        return json.loads(self(*args))


# --- the input SKBs ---------------------------------------------------------------------

def demo_dir() -> Path:
    """The bundled demo SKB: the one folder inside the installed afr package holding an
    skb.json with a questions.csv beside it."""
    import afr

    found = sorted(p.parent for p in Path(afr.__file__).resolve().parent.rglob("skb.json")
                   if (p.parent / "questions.csv").is_file())
    if len(found) != 1:
        raise AssertionError(f"expected one bundled demo SKB in the afr package, found {found}")
    return found[0]


def skb_dirs(work: Path, *, generate: bool) -> dict[str, Path]:
    """Each set's SKB directory; ``generate``: write the synthetic ones with `afr synth`."""
    out = {}
    for skb in SETS:
        if skb.synth is None:
            out[skb.name] = demo_dir()
            continue
        out[skb.name] = work / f"skb-{skb.name}"
        if generate:
            Afr(work)("synth", str(out[skb.name]), *skb.synth)
    return out


def fingerprint(skb_dir: Path) -> str:
    """sha256 over the SKB's files, uncompressed (a gzip header may carry a time)."""
    digest = hashlib.sha256()
    names = ("skb.json", "nodes.jsonl", "edges.csv", "questions.csv")
    for path in sorted(skb_dir.iterdir()):
        name = path.name.removesuffix(".gz")
        if name not in names:
            continue
        data = path.read_bytes()
        if path.name.endswith(".gz"):
            data = gzip.decompress(data)
        digest.update(name.encode() + b"\0" + data + b"\0")
    return digest.hexdigest()[:16]


# --- the scripted LLM -------------------------------------------------------------------

def _squash(text: str) -> str:
    return " ".join(html.unescape(text).split())


def _pair_key(local_id: int) -> int:
    """A fixed total order on the reranker's local ids 1…30, unlike their own."""
    return (local_id * 13) % 31


class ScriptedLLM:
    """A deterministic stand-in for the LLM: step 1 names the question's gold target type,
    step 2 (and a repair round) writes its gold Cypher, the question being found by its text
    in the prompt (questions.csv of the sets); listwise reranking reverses the candidates
    shown, pointwise scores and pairwise choices follow ``_pair_key``. It tells the steps
    apart by the prompts' cues: ``<entity id="N"`` tags (one: pointwise; "Rank all":
    listwise; else pairwise), the word "Cypher" (step 2 and its repair), else step 1."""

    def __init__(self, skb_dirs: list[Path]) -> None:
        self.questions: dict[str, dict[str, str]] = {}
        for skb_dir in skb_dirs:
            with open(skb_dir / "questions.csv", newline="", encoding="utf-8") as fh:
                for row in csv.DictReader(fh):
                    self.questions[_squash(row["query"])] = row
        # the longest first: a question containing another one is found as itself
        self.order = sorted(self.questions, key=len, reverse=True)

    def question(self, prompt: str) -> dict[str, str]:
        for text in self.order:
            if text in prompt:
                return self.questions[text]
        raise AssertionError(f"scripted LLM: no known question in the prompt {prompt[:300]!r}")

    def __call__(self, request: dict[str, Any]) -> Reply:
        prompt = _squash(prompt_text(request))
        low = prompt.lower()
        ids = [int(i) for i in re.findall(r'<entity id="(\d+)"', prompt)]
        if ids:
            if len(ids) == 1:  # pointwise
                return Reply(f"{_pair_key(ids[0]) / 31:.3f}")
            if "rank all" in low:  # listwise
                return Reply(", ".join(str(i) for i in reversed(ids)))
            return Reply(str(min(ids[:2], key=_pair_key)))  # pairwise
        row = self.question(prompt)
        if "cypher" in low:  # step 2, or its repair round
            return Reply(row["cypher"])
        if "json" in low:  # KAR's entity parse (no run here asks KAR with an LLM)
            return Reply("[]")
        if "write one document" in low:  # KAR's expansion
            return Reply(row["query"])
        return Reply(row["target_type"])  # step 1


# --- capture ----------------------------------------------------------------------------

@dataclass(frozen=True)
class StoreTarget:
    """Where a store's sets live: a DuckDB file per set under ``work``, or a PostgreSQL
    schema per set (``prefix`` + set name)."""

    kind: str  # duckdb | postgres
    work: Path
    url: str | None = None
    prefix: str = ""

    def afr(self, set_name: str) -> Afr:
        if self.kind == "duckdb":
            return Afr(self.work, db=str(self.work / f"{set_name}.duckdb"))
        return Afr(self.work, db=self.url, schema=f"{self.prefix}{set_name}")


def sort_key(key: str) -> tuple:
    """Keys in order, question ids by number."""
    return tuple((0, int(p), "") if p.isdigit() else (1, 0, p) for p in key.split("/"))



def _method(config: dict[str, Any]) -> str:
    """The method a logged run asked with: its settings tree (``ask.method``), or the flat
    settings afr stored before the tree (``method``)."""
    return str((config.get("ask") or {}).get("method") or config["method"])


def capture_run(afr: Afr, source: Path, run: Run, llm_url: str) -> dict[str, Any]:
    args = ["eval", "run", str(source), *run.args, "--exact", "--name", run.name, "--json"]
    if run.llm:
        args += ["--llm-url", llm_url, "--llm-model", "fake"]
    eval_id = json.loads(afr(*args))["eval_id"]
    prefix = f"{run.set}/{run.name}"
    out: dict[str, Any] = {}
    for row in afr.sql("SELECT question_id, variant, ranked FROM eval_variants "
                       "WHERE eval_id = $id", id=eval_id):
        out[f"{prefix}/{row['question_id']}/{row['variant']}"] = list(row["ranked"] or [])
    asked: set[str] = set()  # the run of each question (the others: method sweeps)
    for row in afr.sql("SELECT question_id, run_id, status, outcome FROM eval_results "
                       "WHERE eval_id = $id", id=eval_id):
        asked.add(row["run_id"])
        out[f"{prefix}/{row['question_id']}/question"] = [row["status"], row["outcome"], None]
    names: dict[str, str] = {}
    for row in afr.sql("SELECT run_id, question_id, target_type, config FROM runs "
                       "WHERE eval_id = $id", id=eval_id):
        qid = row["question_id"]
        if row["run_id"] in asked:
            names[row["run_id"]] = f"{prefix}/{qid}/answers"
            out[f"{prefix}/{qid}/question"][2] = row["target_type"]
        else:
            names[row["run_id"]] = f"{prefix}/{qid}/method={_method(row['config'])}/answers"
    answers: dict[str, list[tuple[int, list]]] = {name: [] for name in names.values()}
    for row in afr.sql("SELECT a.run_id, a.final_rank, n.ext_id, a.source, a.level, "
                       "a.rerank_position FROM run_answers a JOIN nodes n ON n.id = a.node_id "
                       "WHERE a.run_id IN (SELECT run_id FROM runs WHERE eval_id = $id)",
                       id=eval_id):
        answers[names[row["run_id"]]].append(
            (row["final_rank"],
             [row["ext_id"], row["source"], row["level"], row["rerank_position"]]))
    for name, ranked in answers.items():
        out[name] = [answer for _, answer in sorted(ranked, key=lambda r: r[0])]
    return out


Timings = dict[str, tuple[float, float]]  # step → (wall, this process's CPU) seconds


def capture_store(target: StoreTarget, sets: dict[str, Path],
                  timings: Timings | None = None) -> dict[str, Any]:
    """Load, embed and index every set into the store, make every eval run, and return
    key → value (module docstring)."""
    out: dict[str, Any] = {}
    timings = {} if timings is None else timings

    @contextlib.contextmanager
    def timed(name: str) -> Iterator[None]:
        wall, cpu = time.perf_counter(), time.process_time()
        yield
        timings[f"{target.kind}/{name}"] = (time.perf_counter() - wall,
                                            time.process_time() - cpu)

    with FakeOpenAI(ScriptedLLM(list(sets.values()))) as server:
        for skb in SETS:
            afr = target.afr(skb.name)
            with timed(f"{skb.name}/setup"):
                afr("load", str(sets[skb.name]))
                afr("embed", "--model", "hash")
                afr("index", "--similarity")
            for run in RUNS:
                if run.set == skb.name:
                    with timed(f"{run.set}/{run.name}"):
                        out.update(capture_run(afr, sets[skb.name], run, server.base_url))
    return dict(sorted(out.items(), key=lambda kv: sort_key(kv[0])))


class PostgresCapture:
    """The PostgreSQL capture in a child process (``--capture-postgres``), so that it runs
    while this process captures DuckDB; the sets must exist under ``work`` already."""

    def __init__(self, url: str, work: Path) -> None:
        self.url, self.work = url, work
        self.prefix = f"golden_{uuid.uuid4().hex[:8]}_"
        self.out = work / "postgres.json"
        self.log = open(work / "postgres.log", "w+b")  # noqa: SIM115 - closed in result()
        self.child = subprocess.Popen(
            [sys.executable, str(Path(__file__).resolve()), "--capture-postgres", url,
             self.prefix, str(work), str(self.out)],
            stdout=self.log, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL)

    def result(self, timeout: float = 900) -> tuple[dict[str, Any], Timings]:
        try:
            code = self.child.wait(timeout)
        except subprocess.TimeoutExpired:
            self.child.kill()
            self.child.wait()
            raise
        finally:
            self.log.seek(0)
            output = self.log.read().decode(errors="replace")
            self.log.close()
            with contextlib.suppress(Exception):
                drop_schemas(self.url, self.prefix)
        if code != 0:
            raise AssertionError(f"the PostgreSQL capture failed (exit {code}):\n"
                                 f"{output[-6000:]}")
        data = json.loads(self.out.read_text())
        return data["lists"], {k: tuple(v) for k, v in data["timings"].items()}


def _capture_postgres_main(url: str, prefix: str, work: Path, out: Path) -> None:
    timings: Timings = {}
    lists = capture_store(StoreTarget("postgres", work, url, prefix),
                          skb_dirs(work, generate=False), timings)
    out.write_text(json.dumps({"lists": lists, "timings": timings}))


def drop_schemas(url: str, prefix: str) -> None:
    """Remove the schemas a capture made (the server may outlive the run)."""
    import psycopg

    with psycopg.connect(url, autocommit=True) as conn:
        names = [r[0] for r in conn.execute(
            "SELECT nspname FROM pg_namespace WHERE starts_with(nspname, %s)", (prefix,))]
        for name in names:
            conn.execute(f'DROP SCHEMA "{name}" CASCADE')


def capture_all(work: Path, pg_url: str | None) -> tuple[dict[str, dict[str, Any]], Timings]:
    """Both stores' captures (PostgreSQL's only with a ``pg_url``), side by side."""
    sets = skb_dirs(work, generate=True)
    pg = PostgresCapture(pg_url, work) if pg_url else None
    timings: Timings = {}
    try:
        lists = {"duckdb": capture_store(StoreTarget("duckdb", work), sets, timings)}
    except BaseException:
        if pg is not None:
            pg.child.kill()
            with contextlib.suppress(Exception):
                pg.result()
        raise
    if pg is not None:
        lists["postgres"], pg_timings = pg.result()
        timings.update(pg_timings)
    return lists, timings


# --- compare ----------------------------------------------------------------------------

def differences(expected: dict[str, Any], actual: dict[str, Any], *, first: int = 5,
                labels: tuple[str, str] = ("golden", "now")) -> list[str]:
    """Readable differences: how many, then the first differing keys with both values,
    missing and extra keys. Empty when equal."""
    missing = [k for k in expected if k not in actual]
    extra = [k for k in actual if k not in expected]
    differ = [k for k in expected if k in actual and expected[k] != actual[k]]
    if not (missing or extra or differ):
        return []
    lines = [f"{len(differ)} of {len(expected)} keys differ, {len(missing)} missing, "
             f"{len(extra)} extra ({labels[0]} against {labels[1]})"]
    for key in differ[:first]:
        one, two = expected[key], actual[key]
        where = ""
        if isinstance(one, list) and isinstance(two, list):
            at = next((i for i, (a, b) in enumerate(zip(one, two, strict=False)) if a != b),
                      min(len(one), len(two)))
            where = f" (first difference at rank {at + 1}, lengths {len(one)} and {len(two)})"
        lines += [f"  {key}{where}", f"    {labels[0]}: {one}", f"    {labels[1]}: {two}"]
    if missing:
        lines.append(f"  missing in {labels[1]}: {missing[:first]}")
    if extra:
        lines.append(f"  not in {labels[0]}: {extra[:first]}")
    return lines


def counts(lists: dict[str, Any]) -> dict[str, int]:
    """Keys per SET/RUN."""
    out: dict[str, int] = {}
    for key in lists:
        set_run = "/".join(key.split("/")[:2])
        out[set_run] = out.get(set_run, 0) + 1
    return out


# --- the golden file --------------------------------------------------------------------

def read_golden(path: Path = GOLDEN_FILE) -> dict[str, Any]:
    """The file, with ``lists`` per store (PostgreSQL's rebuilt from its differences)."""
    with gzip.open(path, "rt", encoding="utf-8") as fh:
        data = json.load(fh)
    duck = data["lists"]["duckdb"]
    data["lists"] = {"duckdb": duck,
                     "postgres": {**duck, **data["lists"]["postgres_differs"]}}
    return data


def _lines(mapping: dict[str, Any]) -> str:
    """A JSON object with one compact key per line (a readable diff of ``zcat`` outputs)."""
    items = [f"{json.dumps(k, ensure_ascii=False)}:"
             f"{json.dumps(v, separators=(',', ':'), ensure_ascii=False)}"
             for k, v in mapping.items()]
    return "{\n" + ",\n".join(items) + "\n}"


def write_golden(header: dict[str, Any], lists: dict[str, dict[str, Any]],
                 path: Path = GOLDEN_FILE) -> None:
    duck, pg = lists["duckdb"], lists["postgres"]
    assert duck.keys() == pg.keys(), "the stores captured different keys"
    pg_differs = {k: v for k, v in pg.items() if v != duck[k]}
    text = (json.dumps(header, indent=1, ensure_ascii=False)[:-2]
            + ',\n"lists": {"duckdb": ' + _lines(duck)
            + ',\n"postgres_differs": ' + _lines(pg_differs) + "}}\n")
    json.loads(text)  # well formed
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path, "wb") as raw, gzip.GzipFile(fileobj=raw, mode="wb", mtime=0,
                                                 filename="") as fh:
        fh.write(text.encode("utf-8"))


def describe() -> dict[str, Any]:
    """What the capture ran, stored beside the lists for readers."""
    return {"sets": {s.name: ("afr synth DIR " + " ".join(s.synth)) if s.synth else
                     "the bundled demo SKB" for s in SETS},
            "runs": {f"{r.set}/{r.name}": " ".join(["afr eval run DIR", *r.args, "--exact"])
                     + (" --llm-url URL --llm-model fake" if r.llm else "") for r in RUNS}}


def library_commit() -> str:
    """The commit the library is at; refuses a tree whose library files are modified."""
    def git(*args: str) -> str:
        return subprocess.run(["git", "-C", str(REPO), *args], check=True,
                              capture_output=True, text=True).stdout.strip()

    try:
        commit = git("rev-parse", "--short", "HEAD")
        dirty = git("status", "--porcelain", "--", "afr", "cli", "sql", "schema",
                    "pyproject.toml")
    except (OSError, subprocess.CalledProcessError):
        return "unknown"
    if dirty:
        raise SystemExit(f"afr's own files are modified, no reference made from them:\n{dirty}")
    return commit


# --- --regen ----------------------------------------------------------------------------

@contextlib.contextmanager
def postgres_url() -> Iterator[str]:
    """$AFR_TEST_DATABASE_URL, else a pgserver of our own, stopped and removed after."""
    url = os.environ.get("AFR_TEST_DATABASE_URL")
    if url:
        yield url
        return
    import atexit

    import pgserver
    from pgutil import stop_test_server

    datadir = tempfile.mkdtemp(prefix="afr-pg-")
    try:
        server = pgserver.get_server(datadir, cleanup_mode=None)
        yield server.get_uri()
        server.cleanup()  # with cleanup_mode None: only forgets this process's handle
        atexit.unregister(server._cleanup)
    finally:
        stop_test_server(Path(datadir))


def regen() -> None:
    commit = library_commit()
    work = Path(tempfile.mkdtemp(prefix="afr-golden-"))
    try:
        started = time.perf_counter()
        with postgres_url() as url:
            lists, timings = capture_all(work, url)
        elapsed = time.perf_counter() - started
        sets = skb_dirs(work, generate=False)
        header = {"format": FORMAT, "commit": commit,
                  "inputs": {name: fingerprint(path) for name, path in sets.items()},
                  **describe()}
        write_golden(header, lists)
        for name, (wall, cpu) in sorted(timings.items()):
            print(f"{name}: {wall:.1f} s ({cpu:.1f} s CPU)")
        for set_run, n in counts(lists["duckdb"]).items():
            print(f"{set_run}: {n} keys per store")
        differ = [k for k, v in lists["postgres"].items() if v != lists["duckdb"][k]]
        print(f"{len(lists['duckdb'])} keys per store, {len(differ)} differ between them: "
              f"{differ}")
        print(f"captured in {elapsed:.1f} s → {GOLDEN_FILE} "
              f"({GOLDEN_FILE.stat().st_size:,} bytes, from commit {commit})")
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    if sys.argv[1:] == ["--regen"]:
        regen()
    elif len(sys.argv) == 6 and sys.argv[1] == "--capture-postgres":
        _capture_postgres_main(sys.argv[2], sys.argv[3], Path(sys.argv[4]), Path(sys.argv[5]))
    else:
        raise SystemExit("usage: python tests/golden.py --regen")
