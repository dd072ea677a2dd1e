"""Store behaviour on both databases: schema, metadata, read-only access, failures."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

import psycopg
import pytest
from skbutil import toy_skb

from afr.errors import StoreError
from afr.load import load_skb_dir
from afr.settings import SettingsError, resolve_settings
from afr.store import DuckDBStore, PostgresStore, Store, duckdb_store, open_store
from afr.store.base import SCHEMA_VERSION, render_template
from afr.store.dialect import DUCKDB, POSTGRES


def test_init_is_idempotent(store: Store) -> None:
    store.init()
    store.init()
    assert store.schema_version() == SCHEMA_VERSION
    assert store.skb_name() is None
    assert store.table_exists("nodes") and not store.table_exists("no_such_table")


def test_meta_roundtrip(store: Store) -> None:
    store.init()
    store.set_meta("k", "v1")
    store.set_meta("k", "v2")
    assert store.get_meta("k") == "v2"
    assert store.get_meta("missing") is None


def test_newer_schema_is_refused(store: Store) -> None:
    store.init()
    store.set_meta("schema_version", str(SCHEMA_VERSION + 1))
    with pytest.raises(StoreError, match="newer than this afr"):
        store.init()


def test_transaction_rolls_back(store: Store) -> None:
    store.init()
    with pytest.raises(RuntimeError), store.transaction():
        store.set_meta("x", "1")
        raise RuntimeError("boom")
    assert store.get_meta("x") is None


def test_templates_transpile_for_both(tmp_path: Path) -> None:
    for template in ["vss/topk.sql", "docs/relations.sql", "offline/link_names.sql"]:
        for dialect in (DUCKDB, POSTGRES):
            statements = render_template(template, dialect, variant="doc", dim=4, types=True,
                                         ids=True, exclude=True)
            assert statements and all(s.strip() for s in statements)
    pg = render_template("vss/topk.sql", POSTGRES, variant="doc", dim=4, types=False,
                         ids=False, exclude=False)[0]
    assert "<=>" in pg and "VECTOR(4)" in pg and "%(q)s" in pg
    pg = render_template("vss/topk.sql", POSTGRES, variant="doc", dim=4, types=False,
                         ids=True, exclude=True)[0]
    assert "= ANY(CAST(%(ids)s AS BIGINT[]))" in pg
    assert "NOT (e.node_id = ANY(CAST(%(exclude)s AS BIGINT[])))" in pg
    duck = render_template("vss/topk.sql", DUCKDB, variant="doc", dim=4, types=False,
                           ids=False, exclude=False)[0]
    assert "ARRAY_COSINE_DISTANCE" in duck.upper() and "$q" in duck


def test_read_only_duckdb_refuses_writes(tmp_path: Path) -> None:
    path = tmp_path / "s.duckdb"
    store = DuckDBStore(path)
    load_skb_dir(store, toy_skb(tmp_path / "skb"), progress=False)
    store.close()
    ro = DuckDBStore(path, read_only=True)
    with pytest.raises(StoreError, match="read-only"):
        ro.query("DELETE FROM nodes")
    assert ro.query("SELECT count(*) FROM nodes")[0][0] == 8
    ro.close()


def test_read_only_postgres_refuses_writes(pg_url: str, pg_schema_name: str,
                                           tmp_path: Path) -> None:
    store = PostgresStore(pg_url, schema=pg_schema_name)
    load_skb_dir(store, toy_skb(tmp_path / "skb"), progress=False)
    store.close()
    ro = PostgresStore(pg_url, schema=pg_schema_name, read_only=True)
    with pytest.raises(StoreError, match="read-only"):
        ro.query("DELETE FROM nodes")
    with pytest.raises(StoreError):
        ro.query("DROP TABLE nodes")
    assert ro.query("SELECT count(*) FROM nodes")[0][0] == 8
    ro.close()


def test_duckdb_memory_limit(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A DuckDB store caps DuckDB's buffer pool at half the machine's memory (DuckDB's own
    default is 80%), or at the setting store.duckdb_memory_mb (AFR_DUCKDB_MEMORY_MB);
    read-only stores too."""
    def limit(store: DuckDBStore) -> float:  # GiB, as DuckDB shows it ("11.7 GiB")
        value, unit = store.query("SELECT current_setting('memory_limit')")[0][0].split()
        assert unit == "GiB"
        return float(value)

    half = duckdb_store.duckdb_memory_mb()
    total = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
    assert abs(half - total / 2 / (1 << 20)) <= 1
    path = tmp_path / "m.duckdb"
    store = DuckDBStore(path)
    assert abs(limit(store) - half / 1024) <= 0.1
    store.close()
    monkeypatch.setenv("AFR_DUCKDB_MEMORY_MB", "1536")
    settings = resolve_settings(use_file=False).settings.store
    ro = open_store(path, read_only=True, settings=settings)
    assert limit(ro) == 1.5
    ro.close()
    monkeypatch.setenv("AFR_DUCKDB_MEMORY_MB", "half")
    with pytest.raises(SettingsError, match="AFR_DUCKDB_MEMORY_MB must be a whole number"):
        resolve_settings(use_file=False)


def test_missing_duckdb_store_read_only(tmp_path: Path) -> None:
    with pytest.raises(StoreError, match="no store at"):
        DuckDBStore(tmp_path / "absent.duckdb", read_only=True)


def test_locked_duckdb_store_is_a_clear_error(tmp_path: Path) -> None:
    path = tmp_path / "locked.duckdb"
    DuckDBStore(path).close()
    holder = subprocess.Popen(
        [sys.executable, "-c", textwrap.dedent(f"""
            import duckdb, sys
            con = duckdb.connect({str(path)!r})
            print("locked", flush=True)
            sys.stdin.read()  # holds the lock until killed (no time limit to outrun)
        """)],
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True,
    )
    try:
        assert holder.stdout is not None and holder.stdout.readline().strip() == "locked"
        with pytest.raises(StoreError, match="in use by another process"):
            DuckDBStore(path)
    finally:
        holder.kill()
        holder.wait()  # gone: the system has released its lock
    DuckDBStore(path).close()  # usable again once the other process is gone


def test_unreachable_postgres_is_one_line() -> None:
    with pytest.raises(StoreError) as info:
        open_store("postgresql://afr:secret@127.0.0.1:1/nowhere")
    text = str(info.value)
    assert "cannot connect to PostgreSQL" in text and "\n" not in text
    assert "secret" not in text


def test_postgres_without_vector_extension(pg_url: str) -> None:
    """A non-superuser in a database without pgvector gets a clear message."""
    with psycopg.connect(pg_url, autocommit=True) as admin:
        admin.execute("DROP DATABASE IF EXISTS novector")
        admin.execute("DROP ROLE IF EXISTS plain_user")
        admin.execute("CREATE ROLE plain_user LOGIN PASSWORD 'pw'")
        admin.execute("CREATE DATABASE novector OWNER plain_user")
    url = pg_url.replace("postgres:@", "plain_user:pw@").replace("/postgres?", "/novector?")
    with pytest.raises(StoreError, match="extension 'vector'"):
        PostgresStore(url)


def test_postgres_works_without_superuser(pg_url: str, tmp_path: Path) -> None:
    """vector installed by an admin; afr then runs as a plain user in its own schema."""
    with psycopg.connect(pg_url, autocommit=True) as admin:
        admin.execute("DROP DATABASE IF EXISTS withvector")
        admin.execute("DROP ROLE IF EXISTS app_user")
        admin.execute("CREATE ROLE app_user LOGIN PASSWORD 'pw'")
        admin.execute("CREATE DATABASE withvector OWNER app_user")
    admin_url = pg_url.replace("/postgres?", "/withvector?")
    with psycopg.connect(admin_url, autocommit=True) as admin:
        admin.execute("CREATE EXTENSION vector")
    url = pg_url.replace("postgres:@", "app_user:pw@").replace("/postgres?", "/withvector?")
    store = PostgresStore(url, schema="kb")
    load_skb_dir(store, toy_skb(tmp_path / "skb"), progress=False)
    assert store.query("SELECT count(*) FROM nodes")[0][0] == 8
    assert store.query("SELECT current_user")[0][0] == "app_user"
    store.close()


def test_postgres_binds_long_id_lists_as_bigint_arrays(pg_store) -> None:
    """Long lists of ints go to PostgreSQL as one bigint[] literal (afr's own dumper, for
    speed); the values, and how every template uses them, are unchanged."""
    from afr.store.postgres_store import _bind_id_lists, _IdList

    ids = list(range(10**12, 10**12 + 5000))
    bound = _bind_id_lists({"ids": ids, "few": [1, 2], "names": ["a"] * 100,
                            "mixed": [1, True] * 50})
    assert type(bound["ids"]) is _IdList
    assert all(type(bound[k]) is list for k in ("few", "names", "mixed"))
    rows = pg_store.query(
        "SELECT pg_typeof(%(ids)s)::text, cardinality(CAST(%(ids)s AS BIGINT[])), "
        "(CAST(%(ids)s AS BIGINT[]))[5000], 1000000000003 = ANY(%(ids)s), "
        "(SELECT count(*) FROM unnest(CAST(%(ids)s AS BIGINT[])) AS u(id) WHERE id > 0)",
        {"ids": ids})
    assert tuple(rows[0]) == ("bigint[]", 5000, 10**12 + 4999, True, 5000)
    lvls = list(range(100))
    assert pg_store.query("SELECT (CAST(%(l)s AS INTEGER[]))[100]", {"l": lvls})[0][0] == 99
