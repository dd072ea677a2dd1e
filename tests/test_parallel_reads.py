"""Independent reads of a step run on two connections at once (afr.retrieval.parallel).

PostgreSQL stores open a second, read-only connection (``Store.reader``); ``run_reads``
shares reads out between the two and returns exactly what running them in order would.
"""

from __future__ import annotations

import threading
import time
from pathlib import Path

import psycopg
import pytest

from afr.errors import StoreError
from afr.retrieval.parallel import reader_for, run_reads
from afr.store import DuckDBStore, PostgresStore, Store
from afr.vectors.exact import exact_search, use_exact_search


@pytest.mark.postgres
def test_reads_share_two_connections_and_keep_their_order(pg_store: PostgresStore) -> None:
    own = int(pg_store.query("SELECT pg_backend_pid() AS pid")[0].pid)
    assert pg_store.reader() is not None  # opened (run_reads never waits for it)
    reader_answered = threading.Event()

    def backend(conn: Store, i: int) -> tuple[int, int]:
        pid = int(conn.query("SELECT pg_backend_pid() AS pid")[0].pid)
        if conn is pg_store:  # the store's thread waits for the reader's first answer
            assert reader_answered.wait(timeout=120), "the reader never took a read"
        else:
            reader_answered.set()
        return i, pid

    got = run_reads(pg_store, [lambda conn, i=i: backend(conn, i) for i in range(6)])
    assert [i for i, _ in got] == list(range(6))
    pids = {pid for _, pid in got}
    assert own in pids and len(pids) == 2  # the reader's backend answered some of them


@pytest.mark.postgres
def test_the_reader_cannot_write_and_closes_with_its_store(pg_url: str,
                                                           pg_schema_name: str) -> None:
    store = PostgresStore(pg_url, schema=pg_schema_name)
    reader = store.reader()
    assert reader is not None and store.reader() is reader
    assert reader.reader() is None  # no reader of its own
    with pytest.raises(StoreError, match="read-only"):
        reader.execute("CREATE TABLE afr_reader_write (a INT)")
    # still read-only in a new session (after a server restart, a terminated backend)
    reader.con.close()
    with pytest.raises(StoreError, match="read-only"):
        reader.execute("CREATE TABLE afr_reader_write (a INT)")
    assert reader.reconnects == 1
    assert not store.table_exists("afr_reader_write")
    store.close()
    assert reader.con.closed


def _backends(url: str, application: str) -> int:
    """The server's client backends opened under ``application`` (this test's own: a
    count over the whole server also saw other tests' stores, whose connections come and
    go on their own schedule)."""
    with psycopg.connect(url, autocommit=True) as admin:
        return int(admin.execute("SELECT count(*) FROM pg_stat_activity WHERE "
                                 "backend_type = 'client backend' AND application_name = %s",
                                 (application,)).fetchone()[0])


@pytest.mark.postgres
def test_the_reader_opens_in_the_background_and_closes_with_its_store(
        pg_url: str, pg_schema_name: str) -> None:
    application = f"afr-reader-test-{pg_schema_name}"
    url = f"{pg_url}{'&' if '?' in pg_url else '?'}application_name={application}"
    store = PostgresStore(url, schema=pg_schema_name)
    assert _backends(pg_url, application) == 1  # the store's own
    store.reader(wait=False)  # returns at once; the reader may or may not be open yet
    assert run_reads(store, [lambda conn: 1, lambda conn: 2]) == [1, 2]
    store.close()  # waits for a reader still opening, and closes it
    assert store.reader() is None
    # a closed connection's backend exits asynchronously: wait for that event (the
    # deadline only keeps a backend that never exits from hanging the suite)
    deadline = time.monotonic() + 120
    while _backends(pg_url, application) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert _backends(pg_url, application) == 0  # the store's own and its reader's are gone
    # an open reader, held here so that no garbage collection closes it: the store does
    store = PostgresStore(url, schema=pg_schema_name)
    reader = store.reader()
    assert reader is not None and _backends(pg_url, application) == 2
    store.close()
    assert reader.con.closed


@pytest.mark.postgres
def test_a_read_failing_on_the_reader_runs_again_on_the_store(
        pg_store: PostgresStore) -> None:
    where: list[str] = []
    reader_took_one = threading.Event()

    def read(conn: Store, i: int) -> int:
        conn.query("SELECT 1")
        if conn is not pg_store:
            where.append("reader")
            reader_took_one.set()
            raise StoreError("the reader's connection broke")
        # the store's thread holds its first read until the reader has taken one of its
        # own (an event, not a sleep: the bound only keeps a dead reader from hanging)
        assert reader_took_one.wait(timeout=120), "the reader never took a read"
        return i

    assert pg_store.reader() is not None
    assert run_reads(pg_store, [lambda conn, i=i: read(conn, i) for i in range(4)]) == \
        [0, 1, 2, 3]
    assert "reader" in where  # the reader took (and failed) at least one of them


@pytest.mark.postgres
def test_a_read_failing_on_the_store_fails_the_step(pg_store: PostgresStore) -> None:
    def read(conn: Store) -> int:
        raise ValueError("no such thing")

    with pytest.raises(ValueError, match="no such thing"):
        run_reads(pg_store, [read, read, read])


@pytest.mark.postgres
def test_the_reader_searches_as_its_store_does(pg_store: PostgresStore) -> None:
    use_exact_search(pg_store)
    pg_store.reader()
    reader = reader_for(pg_store)
    assert reader is not None and exact_search(reader)
    use_exact_search(pg_store, False)
    assert reader_for(pg_store) is reader and not exact_search(reader)


@pytest.mark.postgres
def test_no_second_connection_means_reads_in_order(pg_store: PostgresStore) -> None:
    pg_store.url = "postgresql://afr@127.0.0.1:1/none"  # refuses at once
    assert pg_store.reader() is None
    seen: list[Store] = []
    assert run_reads(pg_store, [lambda conn, i=i: seen.append(conn) or i
                                for i in range(3)]) == [0, 1, 2]
    assert seen == [pg_store] * 3


def test_an_embedded_store_reads_in_order(tmp_path: Path) -> None:
    store = DuckDBStore(tmp_path / "afr.duckdb")
    try:
        assert store.reader() is None and reader_for(store) is None
        order: list[int] = []
        assert run_reads(store, [lambda conn, i=i: order.append(i) or i * i
                                 for i in range(4)]) == [0, 1, 4, 9]
        assert order == [0, 1, 2, 3]
    finally:
        store.close()


@pytest.mark.postgres
def test_a_store_that_cannot_be_set_up_leaves_no_connection(pg_url: str) -> None:
    """A store failing after it connected (here: its schema is missing and it may not
    create one) closes that connection: a reader failing so left a backend behind."""
    application = "afr-failed-setup-test"
    url = f"{pg_url}{'&' if '?' in pg_url else '?'}application_name={application}"
    with pytest.raises(StoreError) as failed:  # no such schema (or, first, no pgvector)
        PostgresStore(url, schema="afr_no_such_schema", create=False)
    # the traceback (kept, as a failed reader's thread may keep it) holds the half-made
    # store: its connection is closed by the store, not by the garbage collector
    deadline = time.monotonic() + 20
    while _backends(pg_url, application) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert _backends(pg_url, application) == 0, failed.value
