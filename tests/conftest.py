"""Shared fixtures: real stores (a DuckDB file, a real PostgreSQL with pgvector).

PostgreSQL comes from $AFR_TEST_DATABASE_URL when set, else from the `pgserver` package,
which ships a PostgreSQL with pgvector and starts it in-process. Locally a missing
server skips the Postgres tests; in CI (CI=true) it fails them: they must run there.
"""

from __future__ import annotations

import atexit
import os
import sys
import tempfile
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))

from pgutil import stop_test_server  # noqa: E402

from afr.demo import ensure_demo_store  # noqa: E402
from afr.store import DuckDBStore, PostgresStore, Store  # noqa: E402


@pytest.fixture(scope="session")
def pg_url() -> Iterator[str]:
    url = os.environ.get("AFR_TEST_DATABASE_URL")
    if url:
        yield url
        return
    try:
        import pgserver
    except ImportError:
        if os.environ.get("CI"):
            pytest.fail("pgserver is not installed, and CI must run the PostgreSQL tests")
        pytest.skip("no PostgreSQL: install pgserver or set AFR_TEST_DATABASE_URL")
    datadir = tempfile.mkdtemp(prefix="afr-pg-")
    try:
        # We stop and delete it ourselves: pgserver's own cleanup misses a server that a
        # test restarted (a new postmaster), and its "stop" mode keeps the data directory.
        server = pgserver.get_server(datadir, cleanup_mode=None)
        yield server.get_uri()
        server.cleanup()  # with cleanup_mode None: only forgets this process's handle
        atexit.unregister(server._cleanup)
    finally:
        stop_test_server(Path(datadir))


@pytest.fixture
def pg_schema_name() -> str:
    return "t_" + uuid.uuid4().hex[:12]


@pytest.fixture
def duck_store(tmp_path: Path) -> Iterator[DuckDBStore]:
    store = DuckDBStore(tmp_path / "afr.duckdb")
    yield store
    store.close()


@pytest.fixture
def pg_store(pg_url: str, pg_schema_name: str) -> Iterator[PostgresStore]:
    store = PostgresStore(pg_url, schema=pg_schema_name)
    yield store
    store.close()


@pytest.fixture(params=["duckdb", "postgres"])
def store(request: pytest.FixtureRequest) -> Iterator[Store]:
    """Each test using this runs once per store kind."""
    if request.param == "duckdb":
        yield request.getfixturevalue("duck_store")
    else:
        yield request.getfixturevalue("pg_store")


@pytest.fixture(scope="module")
def demo_path(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The bundled demo SKB, loaded and embedded into a DuckDB file of this test module."""
    return ensure_demo_store(tmp_path_factory.mktemp("demo") / "demo.duckdb", progress=False)


@pytest.fixture
def demo(demo_path: Path) -> Iterator[DuckDBStore]:
    store = DuckDBStore(demo_path)
    yield store
    store.close()
