"""Independent reads of a step run on two connections at once (afr.pipeline.parallel).

PostgreSQL stores open a second, read-only connection (``Store.reader``); ``run_reads``
shares reads out between the two and returns exactly what running them in order would.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from afr.errors import StoreError
from afr.pipeline.parallel import reader_for, run_reads
from afr.store import DuckDBStore, PostgresStore, Store
from afr.vectors.exact import exact_search, use_exact_search


def _backend(conn: Store, i: int) -> tuple[int, int]:
    # long enough that the reader's thread starts before the store's own thread is done
    row = conn.query("SELECT pg_backend_pid() AS pid, pg_sleep(0.05) AS pause")[0]
    return i, int(row.pid)


@pytest.mark.postgres
def test_reads_share_two_connections_and_keep_their_order(pg_store: PostgresStore) -> None:
    own = int(pg_store.query("SELECT pg_backend_pid() AS pid")[0].pid)
    got = run_reads(pg_store, [lambda conn, i=i: _backend(conn, i) for i in range(6)])
    assert [i for i, _ in got] == list(range(6))
    pids = {pid for _, pid in got}
    assert own in pids and len(pids) == 2  # the reader's backend answered some of them


@pytest.mark.postgres
def test_the_reader_cannot_write_and_closes_with_its_store(pg_url: str,
                                                           pg_schema_name: str) -> None:
    store = PostgresStore(pg_url, schema=pg_schema_name)
    reader = store.reader()
    assert reader is not None and store.reader() is reader
    with pytest.raises(StoreError, match="read-only"):
        reader.execute("CREATE TABLE afr_reader_write (a INT)")
    assert not store.table_exists("afr_reader_write")
    store.close()
    assert reader.con.closed


@pytest.mark.postgres
def test_a_read_failing_on_the_reader_runs_again_on_the_store(
        pg_store: PostgresStore) -> None:
    where: list[str] = []

    def read(conn: Store, i: int) -> int:
        conn.query("SELECT pg_sleep(0.05)")
        if conn is not pg_store:
            where.append("reader")
            raise StoreError("the reader's connection broke")
        return i

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
