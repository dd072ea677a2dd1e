"""Shared fixtures: real stores (a DuckDB file, a real PostgreSQL with pgvector), and the
rule that no test is skipped silently.

PostgreSQL comes from $AFR_TEST_DATABASE_URL when set, else from the `pgserver` package,
which ships a PostgreSQL with pgvector and starts it in-process. Locally a missing
server skips the Postgres tests, and the end of the run says so in capitals; in CI
(CI=true) it fails them: they must run there.

Every skip is listed at the end of a run. In CI a skip fails the run unless
tests/skips_allowed.txt names the test, with the reason it may be skipped there.
"""

from __future__ import annotations

import atexit
import fnmatch
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
        pytest.skip(f"{NO_POSTGRES}: install pgserver or set AFR_TEST_DATABASE_URL")
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


# -- no silent skips ----------------------------------------------------------------------

SKIPS_ALLOWED = Path(__file__).parent / "skips_allowed.txt"
NO_POSTGRES = "no PostgreSQL"
_skipped: list[tuple[str, str]] = []  # (test id, reason)


def allowed_skips(path: Path = SKIPS_ALLOWED) -> list[tuple[str, str]]:
    """(test id pattern, reason) per line ``pattern | reason``; # starts a comment."""
    out = []
    for line in path.read_text(encoding="utf-8").splitlines():
        line = line.split("#", 1)[0].strip()
        if line:
            pattern, _, reason = (part.strip() for part in line.partition("|"))
            if not reason:
                raise ValueError(f"{path.name}: {line!r} gives no reason")
            out.append((pattern, reason))
    return out


def unallowed(skips: list[tuple[str, str]], allowed: list[tuple[str, str]]
              ) -> list[tuple[str, str]]:
    return [(test, why) for test, why in skips
            if not any(fnmatch.fnmatchcase(test, pattern) for pattern, _ in allowed)]


def pytest_runtest_logreport(report: pytest.TestReport) -> None:
    if report.skipped and not hasattr(report, "wasxfail"):
        reason = report.longrepr[2] if isinstance(report.longrepr, tuple) else str(
            report.longrepr)
        _skipped.append((report.nodeid, reason.removeprefix("Skipped: ")))


def pytest_terminal_summary(terminalreporter, exitstatus: int, config: pytest.Config) -> None:
    if not _skipped:
        return
    write = terminalreporter.write_line
    terminalreporter.section("skipped tests")
    for test, why in _skipped:
        write(f"{test}: {why}")
    postgres = [t for t, why in _skipped if why.startswith(NO_POSTGRES)]
    if postgres:
        write(f"POSTGRESQL WAS NOT TESTED: {len(postgres)} tests skipped for want of a "
              "server (install pgserver or set AFR_TEST_DATABASE_URL)", red=True, bold=True)
    if os.environ.get("CI"):
        for test, why in unallowed(_skipped, allowed_skips()):
            write(f"not allowed in CI (tests/skips_allowed.txt): {test}: {why}", red=True,
                  bold=True)


def pytest_sessionfinish(session: pytest.Session, exitstatus: int) -> None:
    if os.environ.get("CI") and unallowed(_skipped, allowed_skips()) \
            and session.exitstatus == pytest.ExitCode.OK:
        session.exitstatus = pytest.ExitCode.TESTS_FAILED


@pytest.fixture(scope="session")
def spark_warehouse(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    """One ``local[2]`` Spark session for the whole test session (it takes ~10 s to start)
    and a warehouse folder for its stores; skipped only where Java is absent. The same
    JVM serves Spark Connect on a free port of 127.0.0.1 (``spark_connect_url``): the
    plugin pyspark's own ``remote("local")`` uses, without a second JVM. The JVM is
    stopped when the session ends."""
    import shutil
    import socket

    if shutil.which("java") is None and not os.environ.get("JAVA_HOME"):
        pytest.skip("no Java: the Spark store tests need a JVM (Java 17+)")
    from afr.store.spark_store import CATALOG_DIR, spark_session

    with socket.socket() as probe:  # a port nobody holds now, for the Connect server
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    # read by the JVM as it starts, only for this session: set and restored around it
    before = os.environ.get("PYSPARK_SUBMIT_ARGS")
    warehouse = tmp_path_factory.mktemp("spark-warehouse")
    # the catalog's own databases too (not ./spark-warehouse): where a store would put them
    os.environ["PYSPARK_SUBMIT_ARGS"] = (
        f"--conf spark.sql.warehouse.dir={warehouse / CATALOG_DIR} "
        "--conf spark.plugins=org.apache.spark.sql.connect.SparkConnectPlugin "
        f"--conf spark.connect.grpc.binding.address=127.0.0.1 "
        f"--conf spark.connect.grpc.binding.port={port} pyspark-shell")
    try:
        spark_session(SPARK_MASTER)
    finally:
        if before is None:
            del os.environ["PYSPARK_SUBMIT_ARGS"]
        else:
            os.environ["PYSPARK_SUBMIT_ARGS"] = before
    _SPARK_CONNECT.append(f"sc://127.0.0.1:{port}")
    yield warehouse
    spark_session(SPARK_MASTER).stop()
    spark_session.cache_clear()


SPARK_MASTER = "local[2]"
_SPARK_CONNECT: list[str] = []


@pytest.fixture
def spark_connect_url(spark_warehouse: Path) -> str:
    """``sc://127.0.0.1:PORT``: the test session's Spark, through Spark Connect."""
    return _SPARK_CONNECT[-1]


@pytest.fixture
def spark_store(spark_warehouse: Path) -> Iterator[Store]:
    """A fresh Spark store (a database of its own in the session's warehouse)."""
    from afr.store.spark_store import SparkStore

    store = SparkStore(f"spark://{SPARK_MASTER}/t_{uuid.uuid4().hex[:12]}",
                       warehouse=spark_warehouse)
    yield store
    store.close()
