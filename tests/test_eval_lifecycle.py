"""An eval run's life in the store (issue 23, item 5): a start that fails leaves no run, a
run whose process died reads as interrupted (and resumes), `afr eval delete` removes a
run with its rows, `afr runs prune --before DATE` the old asks. Both stores.
"""

from __future__ import annotations

import datetime as dt
import subprocess
import sys
from pathlib import Path

from afr.cli.main import cli
from click.testing import CliRunner
from toy_stores import QUESTION, open_store, question_file

from afr.store import DuckDBStore

pytest_plugins = ("toy_fixtures",)  # toy_db

# -P: no current directory on sys.path, so the checkout cannot shadow the installed afr
AFR = [sys.executable, "-P", "-c", "from afr.cli.main import main; main()"]


def afr(db: list[str], *args: str):
    return CliRunner().invoke(cli, [*db, "--no-progress", *args])


def count(db: list[str], sql: str) -> int:
    store = open_store(db, read_only=True)
    try:
        return int(store.query(sql)[0][0])
    finally:
        store.close()


def test_a_failed_start_leaves_no_run(toy_db: list[str], tmp_path: Path) -> None:
    qfile = question_file(tmp_path / "q.csv", 2)
    ghosts = question_file(tmp_path / "ghosts.csv", 2, gold="no-such-node")
    failing = {
        "--replay nosuchcol": ["eval", str(qfile), "--replay", "nosuchcol"],
        "gold ids not in the store": ["eval", str(ghosts)],
        "reranker sweep offline": ["eval", str(qfile), "--offline", "--sweep",
                                   "reranker=listwise"],
        "--methods nope": ["eval", str(qfile), "--methods", "af,nope"],
    }
    for why, args in failing.items():
        result = afr(toy_db, *args)
        assert result.exit_code == 1, (why, result.output)
        assert result.stderr.startswith("afr: error:"), (why, result.stderr)
    # before: one run per failed start, "running 0/2" for ever
    assert count(toy_db, "SELECT count(*) FROM eval_runs") == 0
    assert "no eval runs in this store" in afr(toy_db, "eval", "list").stderr


def _started(proc: subprocess.Popen) -> str:
    """The eval id from the line `afr eval` prints once its run is in the store."""
    for line in proc.stderr:  # type: ignore[union-attr]
        if line.startswith("eval ") and "questions" in line:
            return line.split()[1].rstrip(":")
    raise AssertionError("the eval never started: " + proc.stderr.read())  # type: ignore


def test_a_killed_run_reads_interrupted_and_resumes(toy_db: list[str],
                                                    tmp_path: Path) -> None:
    qfile = question_file(tmp_path / "q.csv", 400)
    proc = subprocess.Popen([*AFR, *toy_db, "--no-progress", "eval", str(qfile), "--offline",
                             "--name", "doomed"], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)
    try:
        eval_id = _started(proc)
        if toy_db[1].startswith("postgresql"):  # (a DuckDB file is locked by its writer)
            # a live run is not resumed or deleted from another process
            busy = afr(toy_db, "eval", "--resume", eval_id)
            assert busy.exit_code == 1 and f"is running in process {proc.pid}" in busy.stderr
            busy = afr(toy_db, "eval", "delete", eval_id)
            assert busy.exit_code == 1 and "is running" in busy.stderr
    finally:
        proc.kill()  # kill -9: no Ctrl-C handler, nothing marks the run
        proc.communicate()
    assert count(toy_db, "SELECT count(*) FROM eval_runs WHERE status = 'running'") == 1
    listed = afr(toy_db, "eval", "list", "--json")
    assert listed.exit_code == 0, listed.output
    assert '"status": "interrupted"' in listed.stdout  # before: "running" for ever
    resumed = afr(toy_db, "eval", "--resume", "doomed", "--json")
    assert resumed.exit_code == 0, resumed.output
    assert "(resuming, status was interrupted)" in resumed.stderr
    assert count(toy_db, "SELECT count(*) FROM eval_results") == 400
    assert count(toy_db, f"SELECT count(*) FROM eval_runs WHERE eval_id = '{eval_id}' "
                         "AND status = 'finished'") == 1


def test_eval_delete(toy_db: list[str], tmp_path: Path) -> None:
    qfile = question_file(tmp_path / "q.csv", 2)
    assert afr(toy_db, "eval", str(qfile), "--offline", "--name", "gone").exit_code == 0
    assert afr(toy_db, "eval", str(qfile), "--offline", "--name", "kept").exit_code == 0
    result = afr(toy_db, "eval", "delete", "gone")
    assert result.exit_code == 0, result.output
    assert "(gone): 2 question rows, 2 logged runs" in result.stderr
    for table in ("eval_runs", "eval_results", "eval_variants"):
        names = count(toy_db, f"SELECT count(DISTINCT eval_id) FROM {table}")
        assert names == 1, table  # only "kept" is left
    assert count(toy_db, "SELECT count(*) FROM runs") == 2
    assert count(toy_db, "SELECT count(*) FROM run_answers WHERE run_id NOT IN "
                         "(SELECT run_id FROM runs)") == 0
    again = afr(toy_db, "eval", "delete", "gone")
    assert again.exit_code == 1 and "no eval 'gone'" in again.stderr


def test_runs_prune(toy_db: list[str], tmp_path: Path) -> None:
    for _ in range(3):
        assert afr(toy_db, "ask", QUESTION).exit_code == 0
    qfile = question_file(tmp_path / "q.csv", 2)
    assert afr(toy_db, "eval", str(qfile), "--offline").exit_code == 0
    tomorrow = (dt.date.today() + dt.timedelta(days=2)).isoformat()
    dry = afr(toy_db, "runs", "prune", "--before", tomorrow, "--dry-run")
    assert dry.exit_code == 0, dry.output
    assert "would remove 3 asks" in dry.stderr and "2 asks of eval runs stay" in dry.stderr
    assert count(toy_db, "SELECT count(*) FROM runs") == 5
    none = afr(toy_db, "runs", "prune", "--before", "2000-01-01")
    assert none.exit_code == 0 and "removed 0 asks" in none.stderr
    done = afr(toy_db, "runs", "prune", "--before", tomorrow)
    assert done.exit_code == 0 and "removed 3 asks" in done.stderr
    assert count(toy_db, "SELECT count(*) FROM runs WHERE eval_id IS NULL") == 0
    assert count(toy_db, "SELECT count(*) FROM runs") == 2
    assert count(toy_db, "SELECT count(*) FROM run_answers WHERE run_id NOT IN "
                         "(SELECT run_id FROM runs)") == 0
    bad = afr(toy_db, "runs", "prune", "--before", "last tuesday")
    assert bad.exit_code == 2


def test_an_older_store_lists_its_runs_read_only_and_migrates(tmp_path: Path) -> None:
    """A store of schema 10 (before eval_runs knew its process): read-only commands read
    it as it is, a writing one upgrades it."""
    db = ["--db", str(tmp_path / "old.duckdb")]
    from toy_stores import two_type_skb

    assert afr(db, "load", str(two_type_skb(tmp_path / "skb"))).exit_code == 0
    assert afr(db, "embed").exit_code == 0
    assert afr(db, "eval", str(question_file(tmp_path / "q.csv", 1)), "--offline",
               "--name", "old").exit_code == 0
    store = DuckDBStore(Path(db[1]))
    store.execute("ALTER TABLE eval_runs DROP COLUMN pid")
    store.execute("ALTER TABLE eval_runs DROP COLUMN host")
    store.set_meta("schema_version", "10")
    store.close()
    listed = afr(db, "eval", "list")
    assert listed.exit_code == 0 and "old" in listed.stdout, listed.output
    assert afr(db, "eval", "show", "old").exit_code == 0
    assert afr(db, "eval", "delete", "old").exit_code == 0
    store = DuckDBStore(Path(db[1]), read_only=True)
    try:
        assert store.schema_version() == 14
        assert {"pid", "host"} <= {r[0] for r in store.query(
            "SELECT column_name FROM information_schema.columns "
            "WHERE table_name = 'eval_runs'")}
    finally:
        store.close()
