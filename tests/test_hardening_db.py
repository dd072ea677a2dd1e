"""Database faults: dead connections, a restarted server, a locked file, a killed load,
a full disk, a store we may not write.

Each fault must end in a clear one-line message or be survived: a PostgreSQL store
whose connection died reconnects on the next call; a load killed with SIGKILL leaves
the store exactly as it was before the load.
"""

from __future__ import annotations

import json
import os
import random
import signal
import subprocess
import sys
import time
import uuid
from collections.abc import Iterator
from pathlib import Path

import psycopg
import pytest
from afr.cli.main import cli
from click.testing import CliRunner
from hostile import Tally, store_fingerprint
from pgutil import pgdata_of
from settings_util import settings_of
from skbutil import TOY_SCHEMA, toy_skb, write_skb

import afr
from afr.errors import StoreError
from afr.pipeline.ask import Pipeline
from afr.store import DuckDBStore, PostgresStore, Store, open_store

QUESTION = "Which paper by Thomas Kipf is about graph learning?"
TALLY = Tally()
# -P: no current directory on sys.path, so a source checkout in the working directory
# cannot shadow the installed package (its cli/ and sql/ only join afr when installed).
AFR = [sys.executable, "-P", "-c", "from afr.cli.main import main; main()"]


@pytest.fixture(scope="module", autouse=True)
def _print_tally() -> Iterator[None]:
    yield
    print("\n" + TALLY.table("database faults"))


def big_skb(directory: Path, n_papers: int = 10_000, n_edges: int = 80_000,
            seed: int = 0) -> Path:
    """The toy schema, bigger: enough rows that a load takes a moment to kill."""
    rng = random.Random(seed)
    nodes = [{"id": f"p{i}", "type": "paper", "name": f"paper number {i}",
              "text": f"about topic {i % 97}", "attrs": {"year": 1990 + i % 30}}
             for i in range(n_papers)]
    nodes += [{"id": f"a{i}", "type": "author", "name": f"author {i}"}
              for i in range(n_papers // 4)]
    seen: set[tuple[str, str, str]] = set()
    while len(seen) < n_edges:
        if rng.random() < 0.5:
            seen.add((f"a{rng.randrange(n_papers // 4)}", "writes", f"p{rng.randrange(n_papers)}"))
        else:
            seen.add((f"p{rng.randrange(n_papers)}", "cites", f"p{rng.randrange(n_papers)}"))
    return write_skb(directory, {**TOY_SCHEMA, "name": "big"}, nodes, sorted(seen))


def _toy_store(store: Store, tmp: Path) -> Store:
    afr.load_skb_dir(store, toy_skb(tmp / "skb"), progress=False)
    afr.embed_store(store, afr.make_embedder("hash"), progress=False)
    return store


# -- PostgreSQL: a connection that dies ------------------------------------------------


def _terminate(pg_url: str, store: PostgresStore) -> None:
    pid = store.con.info.backend_pid
    with psycopg.connect(pg_url, autocommit=True) as admin:
        admin.execute("SELECT pg_terminate_backend(%s)", (pid,))
    # the backend exits asynchronously: wait for that event (the deadline only keeps a
    # backend that never exits from hanging the suite)
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        with psycopg.connect(pg_url, autocommit=True) as admin:
            if not admin.execute("SELECT 1 FROM pg_stat_activity WHERE pid = %s",
                                 (pid,)).fetchall():
                return
        time.sleep(0.02)
    raise AssertionError(f"backend {pid} did not exit")


@pytest.mark.postgres
def test_terminated_backend_reconnects(pg_url: str, pg_schema_name: str,
                                       tmp_path: Path) -> None:
    store = _toy_store(PostgresStore(pg_url, schema=pg_schema_name), tmp_path)
    try:
        pipeline = Pipeline(store, settings_of(llm__offline=True, ask__k=5))
        first = pipeline.ask(QUESTION)
        for round_ in range(5):
            _terminate(pg_url, store)
            result = pipeline.ask(QUESTION)  # the first statement finds the dead session
            assert [a.ext_id for a in result.answers] == [a.ext_id for a in first.answers]
            assert store.reconnects == round_ + 1
            TALLY.add("pg backend terminated", "reconnected", held=True)
        # Killed between the queries and the run-log transaction: the probe before BEGIN
        # reconnects, so the run is still logged.
        _terminate(pg_url, store)
        with store.transaction():
            store.run("meta/set.sql", {"key": "probe", "value": "1"})
        assert store.get_meta("probe") == "1"
        TALLY.add("pg backend terminated", "reconnected before BEGIN", held=True)
        runs = store.query("SELECT count(*) FROM runs")[0][0]
        assert runs == 6
    finally:
        store.close()


@pytest.mark.postgres
def test_dead_connection_inside_a_transaction_is_reported(pg_url: str, pg_schema_name: str,
                                                          tmp_path: Path) -> None:
    store = _toy_store(PostgresStore(pg_url, schema=pg_schema_name), tmp_path)
    try:
        before = store_fingerprint(store)
        with pytest.raises(StoreError, match="connection") as info, store.transaction():
            store.run("meta/set.sql", {"key": "half", "value": "done"})
            _terminate(pg_url, store)
            store.run("meta/set.sql", {"key": "other", "value": "x"})
        assert "\n" not in str(info.value)
        # Nothing of the transaction is replayed on the new connection; all is as before.
        assert store.get_meta("half") is None
        assert store_fingerprint(store) == before
        TALLY.add("pg backend terminated", "in transaction: reported, rolled back", held=True)
    finally:
        store.close()


@pytest.mark.postgres
def test_transaction_cut_by_a_lost_connection_runs_again_whole(
        pg_url: str, pg_schema_name: str, tmp_path: Path) -> None:
    store = _toy_store(PostgresStore(pg_url, schema=pg_schema_name), tmp_path)
    attempts: list[int] = []

    def work() -> None:
        attempts.append(1)
        store.run("meta/set.sql", {"key": "first", "value": str(len(attempts))})
        if len(attempts) == 1:
            _terminate(pg_url, store)  # the server goes away mid-transaction
        store.run("meta/set.sql", {"key": "second", "value": str(len(attempts))})

    try:
        store.run_in_transaction(work)
        assert len(attempts) == 2
        # Both writes come from the second, complete run; nothing of the first survived.
        assert store.get_meta("first") == "2" and store.get_meta("second") == "2"
        TALLY.add("pg backend terminated", "transaction re-run whole", held=True)
    finally:
        store.close()




@pytest.mark.postgres
def test_server_restart_during_questions(pg_url: str, pg_schema_name: str,
                                         tmp_path: Path) -> None:
    pgdata = pgdata_of(pg_url)
    if pgdata is None or os.environ.get("AFR_TEST_DATABASE_URL"):
        pytest.skip("needs the pgserver test server, which this test restarts")
    from pgserver._commands import pg_ctl

    store = _toy_store(PostgresStore(pg_url, schema=pg_schema_name), tmp_path)
    try:
        pipeline = Pipeline(store, settings_of(llm__offline=True, ask__k=5))
        expected = [a.ext_id for a in pipeline.ask(QUESTION).answers]
        user = "pgserver" if os.geteuid() == 0 else None
        pg_ctl(["-w", "-m", "fast", "restart"], pgdata=pgdata, user=user, timeout=60)
        result = pipeline.ask(QUESTION)
        assert [a.ext_id for a in result.answers] == expected
        assert store.reconnects >= 1
        TALLY.add("pg server restarted", "reconnected", held=True)
    finally:
        store.close()


# -- DuckDB: a file locked by another process --------------------------------------------


def test_duckdb_locked_by_another_process(tmp_path: Path) -> None:
    db = tmp_path / "locked.duckdb"
    _toy_store(DuckDBStore(db), tmp_path).close()
    holder = subprocess.Popen(
        # holds the lock until killed: no time limit for a slow machine to outrun
        [sys.executable, "-c", "import duckdb, sys; c = duckdb.connect(sys.argv[1]); "
         "print('ready', flush=True); sys.stdin.read()", str(db)],
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    try:
        assert holder.stdout is not None and holder.stdout.readline().strip() == "ready"
        runner = CliRunner()
        for args in (["ask", QUESTION, "--offline"], ["sql", "SELECT 1"], ["info"],
                     ["load", str(tmp_path / "skb"), "--replace"], ["embed"],
                     ["cypher", "MATCH (y:paper)--(a {name: 'x'}) RETURN y", "--run"]):
            result = runner.invoke(cli, ["--db", str(db), *args])
            assert result.exit_code == 1, (args, result.output)
            assert "in use by another process" in result.output, result.output
            assert len(result.output.strip().splitlines()) == 1
            TALLY.add("duckdb locked", "clear message", held=True)
    finally:
        holder.kill()
        holder.wait()


# -- a load killed with SIGKILL ------------------------------------------------------------


# The load runs in a child process that pauses at a known point inside the load's
# transaction (a test-only patch of the loader module, applied before the CLI starts),
# writes what its own connection sees there to a marker file, and waits to be killed.
PAUSING_LOAD = """
import os, signal, sys
from pathlib import Path

import afr.load.loader as loader

marker, where = Path(os.environ["AFR_TEST_MARKER"]), os.environ["AFR_TEST_PAUSE_AT"]


def pause(store):
    # inside the transaction: this connection sees the rows the load has written
    nodes = store.query("SELECT count(*) FROM nodes")[0][0]
    marker.write_text(f"{where} {nodes}")
    while True:
        signal.pause()


def after(name, store_of):
    original = getattr(loader, name)

    def paused(*args, **kwargs):
        value = original(*args, **kwargs)
        pause(store_of(args))
        return value

    setattr(loader, name, paused)


loaded = {}
writes = loader.load_staged


def remember(store, *args, **kwargs):
    loaded["store"] = store
    return writes(store, *args, **kwargs)


loader.load_staged = remember
if where == "rows written":  # the next call after the store took the staged rows
    after("staged_type_counts", lambda args: loaded["store"])
else:  # "indexes built": the name index is the last step before the metadata
    after("build_name_index", lambda args: args[0])
from afr.cli.main import main
sys.argv = ["afr", *sys.argv[1:]]
main()
"""
PAUSE_POINTS = ("rows written", "indexes built")


def _pausing_load(db: str, schema: str | None, skb: Path, where: str, marker: Path
                  ) -> subprocess.Popen:
    args = ["--db", db] + (["--schema", schema] if schema else [])
    # A load killed with SIGKILL cannot remove its temporary files (PostgreSQL's staging
    # CSVs): they go to a folder of the test's own, which pytest removes.
    tmp = skb.parent / "load-tmp"
    tmp.mkdir(exist_ok=True)
    return subprocess.Popen([sys.executable, "-P", "-c", PAUSING_LOAD, *args, "--no-progress",
                             "load", str(skb), "--replace"],
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                            env={**os.environ, "TMPDIR": str(tmp), "AFR_TEST_MARKER": str(marker),
                                 "AFR_TEST_PAUSE_AT": where})


def _wait_for(marker: Path, proc: subprocess.Popen) -> str:
    """The marker's text once the load reached its pause (an event, not a duration: the
    bound only keeps a broken load from hanging the suite)."""
    deadline = time.monotonic() + 600
    while not marker.exists() or not marker.read_text():
        if proc.poll() is not None:
            raise AssertionError(f"the load ended before its pause: {proc.stderr.read()}")
        assert time.monotonic() < deadline, "the load never reached its pause"
        time.sleep(0.05)
    return marker.read_text()


def _open(db: str, schema: str | None) -> Store:
    return open_store(db, schema=schema)


@pytest.mark.parametrize("kind", ["duckdb", pytest.param("postgres", marks=pytest.mark.postgres)])
def test_load_killed_inside_its_transaction_keeps_the_previous_state(
        kind: str, tmp_path: Path, request: pytest.FixtureRequest) -> None:
    if kind == "duckdb":
        db, schema = str(tmp_path / "store.duckdb"), None
    else:
        db, schema = request.getfixturevalue("pg_url"), "k_" + uuid.uuid4().hex[:10]
    store = _toy_store(_open(db, schema), tmp_path)
    before = store_fingerprint(store)
    store.close()
    skb = big_skb(tmp_path / "big", n_papers=2_000, n_edges=8_000)
    for where in PAUSE_POINTS:
        marker = tmp_path / f"paused-{where.replace(' ', '-')}"
        proc = _pausing_load(db, schema, skb, where, marker)
        try:
            seen = _wait_for(marker, proc)
            # the load had replaced the toy's 8 nodes with the big SKB's 2,500 when killed
            assert seen == f"{where} 2500", seen
            proc.send_signal(signal.SIGKILL)
            assert proc.wait(timeout=60) == -signal.SIGKILL
        finally:
            if proc.poll() is None:
                proc.kill()
            proc.wait()
        opened = _open(db, schema)
        state = store_fingerprint(opened)
        opened.close()
        assert state == before, f"killed with {where}: the store changed"
        TALLY.add(f"load killed ({kind})", f"previous state ({where})", held=True)
    # The store is still usable after the kills: it answers.
    opened = _open(db, schema)
    try:
        result = Pipeline(opened, settings_of(llm__offline=True, ask__k=5, ask__log=False)).ask(QUESTION)
        assert result.answers[0].ext_id == "p3"
    finally:
        opened.close()


# -- full disk, no permission ------------------------------------------------------------


@pytest.fixture
def tiny_disk(tmp_path: Path) -> Iterator[Path]:
    """A 3 MB tmpfs (needs root and mount rights; skipped elsewhere)."""
    mount = tmp_path / "tiny"
    mount.mkdir()
    if os.geteuid() != 0:
        pytest.skip("mounting a small file system needs root")
    done = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=3m", "tmpfs", str(mount)],
                          capture_output=True)
    if done.returncode != 0:
        pytest.skip("cannot mount a tmpfs here")
    try:
        yield mount
    finally:
        subprocess.run(["umount", "-l", str(mount)], check=False)


def test_disk_full_is_a_clear_message(tiny_disk: Path, tmp_path: Path) -> None:
    skb = big_skb(tmp_path / "big", n_papers=20_000, n_edges=100_000)
    db = tiny_disk / "store.duckdb"
    done = subprocess.run([*AFR, "--db", str(db), "--no-progress", "load", str(skb)],
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 1, done.stderr
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("afr: error:"), done.stderr
    assert "disk is full" in lines[0] or "No space left" in lines[0], lines[0]
    assert "Traceback" not in done.stderr
    TALLY.add("disk full", "clear message", held=True)
    # An existing store on a disk that fills up during `afr ask` keeps its SKB.
    small = tiny_disk / "small.duckdb"
    _toy_store(DuckDBStore(small), tmp_path).close()
    filler = tiny_disk / "filler"
    with open(filler, "wb") as fh, pytest.raises(OSError):
        while True:
            fh.write(b"\0" * 65536)
            fh.flush()
    asked = subprocess.run([*AFR, "--db", str(small), "ask", QUESTION, "--offline"],
                           capture_output=True, text=True, timeout=120)
    assert "Traceback" not in asked.stderr and "internal error" not in asked.stderr, \
        asked.stderr
    # The answers come through; only the run log could not be written, and it says so.
    assert asked.returncode == 0, asked.stderr
    assert "Kipf" in asked.stdout or "GCN" in asked.stdout
    assert "not logged" in asked.stderr and "disk is full" in asked.stderr, asked.stderr
    filler.unlink()
    check = DuckDBStore(small)
    assert check.query("SELECT count(*) FROM nodes")[0][0] == 8
    check.close()
    TALLY.add("disk full", "answered, run not logged", held=True)


@pytest.fixture
def read_only_dir(tmp_path: Path) -> Iterator[Path]:
    """A directory holding a toy store that this process may not write: by mode bits, or
    for root (whom mode bits do not stop) a read-only bind mount."""
    base = tmp_path / "ro"
    base.mkdir()
    _toy_store(DuckDBStore(base / "store.duckdb"), tmp_path).close()
    if os.geteuid() != 0:
        (base / "store.duckdb").chmod(0o444)
        base.chmod(0o555)
        yield base
        base.chmod(0o755)
        return
    bound = subprocess.run(["mount", "--bind", str(base), str(base)], capture_output=True)
    if bound.returncode != 0:
        pytest.skip("cannot bind-mount here")
    try:
        subprocess.run(["mount", "-o", "remount,ro,bind", str(base)], check=True,
                       capture_output=True)
        yield base
    finally:
        subprocess.run(["umount", "-l", str(base)], check=False)


def test_permission_denied_is_a_clear_message(read_only_dir: Path, tmp_path: Path) -> None:
    base = read_only_dir
    db = base / "store.duckdb"
    skb = toy_skb(tmp_path / "skb2")
    cases = {
        "load into a read-only store": ["--db", str(db), "load", str(skb), "--replace"],
        "new store in a read-only dir": ["--db", str(base / "new.duckdb"), "load", str(skb)],
        "new dir under a read-only dir": ["--db", str(base / "sub" / "x.duckdb"), "load",
                                          str(skb)],
        "ask on a read-only store": ["--db", str(db), "ask", QUESTION, "--offline"],
        "embed on a read-only store": ["--db", str(db), "embed"],
    }
    for name, args in cases.items():
        done = subprocess.run([*AFR, *args], capture_output=True, text=True, timeout=120)
        assert "Traceback" not in done.stderr and "internal error" not in done.stderr, \
            (name, done.stderr)
        assert done.returncode == 1, (name, done.stdout, done.stderr)
        last = done.stderr.strip().splitlines()[-1]
        assert last.startswith("afr: error:"), (name, last)
        assert "ermission" in last or "ead-only file system" in last, (name, last)
        TALLY.add("permission denied", "clear message", held=True)
    # Reading still works: `afr sql` needs no write access.
    done = subprocess.run([*AFR, "--db", str(db), "sql", "SELECT count(*) AS n FROM nodes",
                           "--json"], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout) == [{"n": 8}]
    TALLY.add("permission denied", "read-only use works", held=True)
