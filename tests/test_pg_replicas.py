"""PostgreSQL read replicas (issue 24, item 6): a real primary and a streaming standby.

The standby is made from the test server with pgserver's own ``pg_basebackup`` and runs
on its own port and socket folder in a temp folder, stopped and removed after the module
(also when a test fails). The store's reader reads from it; every write and the run log
stay on the primary; a standby that goes away in the middle of an eval is survived.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import tempfile
import time
import uuid
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import psycopg
import pytest
from pgutil import pgdata_of, stop_test_server
from settings_util import settings_of

from afr.demo import build_demo, example_question
from afr.evaluate.runner import Evaluator
from afr.evaluate.session import run_eval
from afr.resources import demo_skb_dir
from afr.store import PostgresStore, Store

STANDBY_PORT = 5433  # the primary (pgserver) listens on 5432, in another socket folder
WAIT_S = 120  # how long a step of the standby's setup may take before the test fails


@dataclass(frozen=True)
class Pair:
    primary: str  # URLs
    standby: str
    schema: str
    standby_dir: Path
    primary_socket: str


def _as_server_user(kwargs: dict) -> dict:
    # pgserver runs PostgreSQL as the user 'pgserver' when the tests run as root
    return {**kwargs, "user": "pgserver"} if os.geteuid() == 0 else kwargs


def _pg_bin(name: str) -> str:
    from pgserver._commands import POSTGRES_BIN_PATH

    return str(POSTGRES_BIN_PATH / name)


def _start_standby(primary_socket: str, datadir: Path) -> None:
    """A streaming standby of the primary: a base backup whose -R writes standby.signal
    and primary_conninfo, started on its own port with its socket in its own folder."""
    if os.geteuid() == 0:
        shutil.chown(datadir, "pgserver", "pgserver")
    datadir.chmod(0o700)
    run = {"check": True, "capture_output": True, "timeout": WAIT_S}
    subprocess.run([_pg_bin("pg_basebackup"), "-h", primary_socket, "-U", "postgres",
                    "-D", str(datadir), "-R", "-X", "stream", "-c", "fast"], **_as_server_user(run))
    subprocess.run([_pg_bin("pg_ctl"), "-D", str(datadir), "-w", "-o", '-h ""',
                    "-o", f"-k {datadir}", "-o", f"-p {STANDBY_PORT}",
                    "-l", str(datadir / "standby.log"), "start"], **_as_server_user(run))


def _caught_up(primary: str, standby: str) -> None:
    """Wait until the standby has replayed everything the primary has written so far."""
    with psycopg.connect(primary, autocommit=True) as con:
        lsn = con.execute("SELECT pg_current_wal_lsn()::text").fetchone()[0]
    deadline = time.monotonic() + WAIT_S
    with psycopg.connect(standby, autocommit=True) as con:
        while not con.execute("SELECT pg_last_wal_replay_lsn() >= %s::pg_lsn",
                              (lsn,)).fetchone()[0]:
            assert time.monotonic() < deadline, "the standby never caught up"
            time.sleep(0.1)


@pytest.fixture(scope="module")
def pair(pg_url: str) -> Iterator[Pair]:
    """The demo SKB in a schema of the test server (the primary) and a standby of it."""
    primary_dir = pgdata_of(pg_url)
    if primary_dir is None:
        pytest.skip("replica tests need pgserver's own server (not AFR_TEST_DATABASE_URL)")
    primary_socket = pg_url.split("host=", 1)[1].split("&")[0]
    schema = "t_" + uuid.uuid4().hex[:12]
    store = PostgresStore(pg_url, schema=schema)
    build_demo(store)
    store.close()
    datadir = Path(tempfile.mkdtemp(prefix="afr-pg-standby-"))
    try:
        _start_standby(primary_socket, datadir)
        standby = f"postgresql://postgres:@/postgres?host={datadir}&port={STANDBY_PORT}"
        _caught_up(pg_url, standby)
        yield Pair(pg_url, standby, schema, datadir, primary_socket)
    finally:
        stop_test_server(datadir)
        with psycopg.connect(pg_url, autocommit=True) as con:
            con.execute(f'DROP SCHEMA IF EXISTS "{schema}" CASCADE')


def _server(store: Store) -> tuple[bool, str]:
    """(in recovery, port) of the server a store's connection reads from."""
    row = store.query("SELECT pg_is_in_recovery() AS standby, "
                      "current_setting('port') AS port")[0]
    return bool(row.standby), row.port


def _ranked_lists(store: Store, eval_id: str) -> dict[tuple[str, str], list[str]]:
    rows = store.query("SELECT question_id, variant, ranked FROM eval_variants "
                       "WHERE eval_id = %(id)s", {"id": eval_id})
    return {(r[0], r[1]): list(r[2]) for r in rows}


def _eval(store: Store, name: str, note=None) -> tuple[str, dict[tuple[str, str], list[str]]]:
    # HNSW search (not exact): exact search over many questions uses in-memory matrices,
    # which leave the reader nothing to do; the standby holds the primary's very index.
    config = settings_of(rerank__method="none", llm__offline=True)
    session = run_eval(store, str(demo_skb_dir()), replay="cypher", settings=config,
                       name=name, note=note)
    assert session.report.done == session.questions > 0
    return session.run.eval_id, _ranked_lists(store, session.run.eval_id)


@pytest.mark.postgres
def test_the_reader_reads_from_the_standby_and_answers_as_the_primary(pair: Pair) -> None:
    replicated = PostgresStore(pair.primary, schema=pair.schema, replica_url=pair.standby)
    alone = PostgresStore(pair.primary, schema=pair.schema)
    try:
        reader = replicated.reader()
        assert reader is not None and reader.on_standby
        _, with_replica = _eval(replicated, "replica")
        _, primary_only = _eval(alone, "primary")
        assert reader.statements > 0  # the eval's parallel reads ran on the standby
        assert _server(reader) == (True, str(STANDBY_PORT))
        assert _server(replicated) == (False, "5432")  # writes (the eval's rows) went here
        assert replicated.standby_fallbacks == 0
        assert with_replica == primary_only and sum(map(bool, primary_only.values())) > 5
        with pytest.raises(Exception, match="read-only"):  # in recovery, and read-only
            reader.execute("CREATE TABLE afr_on_standby (a INT)")
    finally:
        replicated.close()
        alone.close()


@pytest.mark.postgres
def test_a_multi_host_url_reads_from_the_standby_and_writes_to_the_primary(
        pair: Pair) -> None:
    # The standby first: the store's own connection must still find the primary.
    url = (f"postgresql://postgres:@/postgres?host={pair.standby_dir},{pair.primary_socket}"
           f"&port={STANDBY_PORT},5432&target_session_attrs=prefer-standby")
    store = PostgresStore(url, schema=pair.schema)
    try:
        assert _server(store) == (False, "5432")
        reader = store.reader()
        assert reader is not None and _server(reader) == (True, str(STANDBY_PORT))
        with store.transaction():
            store.set_meta_value("afr_test_replica_write", "1")
        assert store.get_meta("afr_test_replica_write") == "1"
    finally:
        store.close()


@pytest.mark.postgres
def test_runs_show_finds_a_run_the_standby_has_not_replayed(pair: Pair) -> None:
    from afr.cli.main import cli
    from click.testing import CliRunner

    env = {"AFR_DB": pair.primary, "AFR_SCHEMA": pair.schema,
           "AFR_PG_REPLICA_URL": pair.standby, "AFR_LLM_BASE_URL": None,
           "OPENAI_API_KEY": None, "AFR_LLM_API_KEY": None, "XDG_CONFIG_HOME": "/nonexistent"}
    with psycopg.connect(pair.standby, autocommit=True) as standby:
        standby.execute("SELECT pg_wal_replay_pause()")  # the standby lags from here on
        try:
            asked = CliRunner().invoke(cli, ["ask", "--offline", "--json",
                                             example_question() or "asthma"], env=env)
            assert asked.exit_code == 0, asked.output
            run_id = json.loads(asked.stdout)["run_id"]
            shown = CliRunner().invoke(cli, ["runs", "show", run_id, "--json"], env=env)
            assert shown.exit_code == 0, shown.output
            assert json.loads(shown.stdout)["run_id"] == run_id
            lagging = standby.execute(f'SELECT count(*) FROM "{pair.schema}".runs '
                                      "WHERE run_id = %s", (run_id,)).fetchone()[0]
            assert lagging == 0  # the standby has not got the run: it was read on the primary
        finally:
            standby.execute("SELECT pg_wal_replay_resume()")
    _caught_up(pair.primary, pair.standby)


@pytest.mark.postgres
def test_a_standby_that_goes_away_mid_eval_is_survived(
        pair: Pair, monkeypatch: pytest.MonkeyPatch) -> None:
    # Last in this module: the standby stays stopped.
    alone = PostgresStore(pair.primary, schema=pair.schema)
    _, primary_only = _eval(alone, "primary-before-failover")
    alone.close()
    store = PostgresStore(pair.primary, schema=pair.schema, replica_url=pair.standby)
    assert store.reader() is not None
    one = Evaluator._one
    asked: list[int] = []

    def stop_standby_after_the_first_question(self, *args, **kwargs):
        outcome = one(self, *args, **kwargs)
        asked.append(1)
        if len(asked) == 1:
            subprocess.run([_pg_bin("pg_ctl"), "-D", str(pair.standby_dir), "-w", "-m",
                            "immediate", "stop"],
                           **_as_server_user({"check": True, "capture_output": True,
                                              "timeout": WAIT_S}))
        return outcome

    monkeypatch.setattr(Evaluator, "_one", stop_standby_after_the_first_question)
    notes: list[str] = []
    try:
        _, lists = _eval(store, "standby-lost", note=notes.append)
        assert len(asked) > 1
        assert lists == primary_only
        assert store.standby_fallbacks >= 1
        lost = [n for n in notes if "read replica went away" in n]
        assert lost == [f"the read replica went away during the run: "
                        f"{store.standby_fallbacks} read(s) it failed ran again on the "
                        "primary, which took every read after them"]
        reader = store.reader()
        assert reader is not None and _server(reader) == (False, "5432")
    finally:
        store.close()


def test_only_a_url_asking_for_a_standby_is_turned_to_the_primary() -> None:
    from psycopg.conninfo import conninfo_to_dict

    from afr.store.base import redact_url
    from afr.store.postgres_store import primary_conninfo

    plain = "postgresql://afr:secret@db1/kb"
    assert primary_conninfo(plain) == plain  # one server: the store and reader share it
    assert primary_conninfo(plain + "?target_session_attrs=read-write").endswith("read-write")
    multi = "postgresql://afr:secret@db2,db1/kb?target_session_attrs=prefer-standby"
    primary = primary_conninfo(multi)
    assert conninfo_to_dict(primary) == {**conninfo_to_dict(multi),
                                         "target_session_attrs": "primary"}
    assert "secret" not in redact_url(primary)  # a connection string shows no password
