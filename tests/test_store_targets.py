"""Stores that keep what afr reports (issue 23, items 1, 6, 7, 15, 16 and the printed DDL).

No success without data: only a DuckDB database file (or a new path) or a PostgreSQL URL is
a store; a failed first load leaves nothing behind on either store; a record too long to
load is named; DuckDB's single writer is said, with the process holding the file; a DBA's
store gets its per-type vector indexes, or a note that names them, and ``afr info`` lists
them; the printed DDL is one transaction creating each index once.
"""

from __future__ import annotations

import json
import re
import sqlite3
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import psycopg
import pytest
from afr.cli.main import cli
from click.testing import CliRunner
from skbutil import toy_skb

from afr.load import stage
from afr.store import postgres_store

QUESTION = "Which paper by Thomas Kipf is about graph learning?"


def afr(*args: str):
    return CliRunner().invoke(cli, list(args))


@pytest.fixture
def pg_admin(pg_url: str) -> Iterator[psycopg.Connection]:
    con = psycopg.connect(pg_url, autocommit=True)
    yield con
    con.close()


def _schema_exists(con: psycopg.Connection, name: str) -> bool:
    return bool(con.execute("SELECT 1 FROM information_schema.schemata WHERE schema_name = "
                            "%s", (name,)).fetchall())


# -- item 1: only a database file is a store ------------------------------------------------

def _not_stores(tmp_path: Path) -> dict[str, Path | str]:
    csv = tmp_path / "copy.csv"
    csv.write_text("a,b\n1,2\n")
    parquet = tmp_path / "data.parquet"
    parquet.write_bytes(b"PAR1" + b"\0" * 20)
    lite = tmp_path / "kb.sqlite"
    sqlite3.connect(lite).execute("CREATE TABLE t (a)").connection.commit()
    empty = tmp_path / "empty.duckdb"
    empty.touch()
    folder = tmp_path / "folder"
    folder.mkdir()
    return {"csv": csv, "parquet": parquet, "sqlite": lite, "empty": empty,
            "folder": folder, "memory": ":memory:"}


@pytest.mark.parametrize("kind", ["csv", "parquet", "sqlite", "empty", "folder", "memory"])
@pytest.mark.parametrize("command", [["load", "SKB"], ["init"], ["info"], ["demo"]])
def test_only_a_database_file_is_a_store(tmp_path: Path, kind: str, command: list[str],
                                         monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    target = _not_stores(tmp_path)[kind]
    before = Path(target).read_bytes() if Path(target).is_file() else None
    skb = str(toy_skb(tmp_path / "skb"))
    result = afr("--db", str(target), *[skb if a == "SKB" else a for a in command])
    assert result.exit_code == 1, result.output
    lines = result.output.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("afr: error:"), result.output
    assert "DuckDB database file (existing, or a new path) or a postgresql:// URL" in lines[0]
    if before is not None:
        assert Path(target).read_bytes() == before  # untouched
    assert not (tmp_path / ":memory:").exists()


def test_a_new_path_of_any_name_is_a_new_store(tmp_path: Path) -> None:
    db = tmp_path / "new.parquet"  # DuckDB makes a database file of it: kept, reopened
    assert afr("--db", str(db), "load", str(toy_skb(tmp_path / "skb"))).exit_code == 0
    info = json.loads(afr("--db", str(db), "info", "--json").output)
    assert info["skb"] == "toy" and info["nodes"] == 8


# -- item 7: a failed first load leaves nothing, on PostgreSQL too -----------------------

def test_failed_first_load_leaves_no_schema(tmp_path: Path, pg_url: str, pg_schema_name: str,
                                            pg_admin: psycopg.Connection) -> None:
    skb = toy_skb(tmp_path / "skb")
    (skb / "edges.csv").write_text("src,type,dst\np1,cites,nowhere\n")
    result = afr("--db", pg_url, "--schema", pg_schema_name, "load", str(skb))
    assert result.exit_code == 1 and "nowhere" in result.output
    assert not _schema_exists(pg_admin, pg_schema_name)
    # a schema that was there before a failed load stays, with what it held
    good = toy_skb(tmp_path / "good")
    assert afr("--db", pg_url, "--schema", pg_schema_name, "load", str(good)).exit_code == 0
    again = afr("--db", pg_url, "--schema", pg_schema_name, "load", str(skb), "--replace")
    assert again.exit_code == 1
    info = json.loads(afr("--db", pg_url, "--schema", pg_schema_name, "info", "--json").output)
    assert info["skb"] == "toy" and info["edges"] == 7
    pg_admin.execute(f'DROP SCHEMA "{pg_schema_name}" CASCADE')


def test_failed_demo_into_a_new_store_leaves_nothing(tmp_path: Path, pg_url: str,
                                                    pg_schema_name: str,
                                                    pg_admin: psycopg.Connection,
                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    """afr demo --db X into a store it made, failing half-way: no file, no schema."""
    import afr.demo as demo

    def broken(store, **kwargs):
        raise demo.StoreError("the disk is full (simulated)")

    monkeypatch.setattr(demo, "build_demo", broken)
    db = tmp_path / "demo.duckdb"
    assert afr("--db", str(db), "demo").exit_code == 1
    assert not db.exists() and not list(tmp_path.glob("demo.duckdb*"))
    assert afr("--db", pg_url, "--schema", pg_schema_name, "demo").exit_code == 1
    assert not _schema_exists(pg_admin, pg_schema_name)


def test_demo_leaves_another_skb_alone(tmp_path: Path) -> None:
    db = str(tmp_path / "mine.duckdb")
    assert afr("--db", db, "load", str(toy_skb(tmp_path / "skb"))).exit_code == 0
    refused = afr("--db", db, "demo")
    assert refused.exit_code == 1 and "holds the SKB 'toy'" in refused.output
    assert json.loads(afr("--db", db, "info", "--json").output)["skb"] == "toy"
    assert afr("--db", db, "load", "demo", "--replace").exit_code == 0
    assert json.loads(afr("--db", db, "info", "--json").output)["skb"] == "python-stdlib"


# -- item 16: a record too long is named ----------------------------------------------------

def _with_long_record(skb: Path, megabytes: int) -> str:
    lines = (skb / "nodes.jsonl").read_text().splitlines()
    record = json.loads(lines[4])
    record["text"] = "word" * (megabytes << 18)  # 4 bytes × 2**18 = 1 MB
    lines[4] = json.dumps(record)
    (skb / "nodes.jsonl").write_text("\n".join(lines) + "\n")
    return record["id"]


@pytest.mark.parametrize("kind", ["duckdb", "postgres"])
def test_an_oversized_record_is_named(tmp_path: Path, kind: str, request,
                                      monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(stage, "MAX_RECORD_BYTES", 1 << 20)
    skb = toy_skb(tmp_path / "skb")
    db = ["--db", str(tmp_path / "s.duckdb")] if kind == "duckdb" else \
        ["--db", request.getfixturevalue("pg_url"), "--schema",
         request.getfixturevalue("pg_schema_name")]
    # 5 MB: DuckDB reads it (its buffer holds more than the limit); the checks refuse it
    node = _with_long_record(skb, 5)
    result = afr(*db, "load", str(skb))
    assert result.exit_code == 1
    assert f"1 × record longer than 1 MB, e.g. record 5 ({node}: 5.0 MB)" in result.output
    # 40 MB: beyond DuckDB's buffer, which names only its limit; afr names the record
    node = _with_long_record(skb, 40)
    result = afr(*db, "load", str(skb))
    assert result.exit_code == 1
    assert re.search(rf'nodes.jsonl: line 5 \(id "{node}"\) holds 40\.0 MB, more than the 1 '
                     r"MB one record may hold", result.output), result.output
    assert "maximum_object_size" not in result.output


# -- item 15: DuckDB's single writer, said ---------------------------------------------------

HOLD = ("import duckdb, sys, time; c = duckdb.connect(sys.argv[1], read_only=sys.argv[2] == "
        "'r'); print('holding', flush=True); time.sleep(120)")


@pytest.fixture
def loaded(tmp_path: Path) -> Path:
    db = tmp_path / "held.duckdb"
    assert afr("--db", str(db), "load", str(toy_skb(tmp_path / "skb"))).exit_code == 0
    assert afr("--db", str(db), "embed").exit_code == 0
    return db


def _holder(db: Path, mode: str) -> subprocess.Popen:
    proc = subprocess.Popen([sys.executable, "-c", HOLD, str(db), mode],
                            stdout=subprocess.PIPE, text=True)
    assert proc.stdout is not None and proc.stdout.readline().strip() == "holding"
    return proc


def test_a_writer_elsewhere_is_named(loaded: Path) -> None:
    proc = _holder(loaded, "w")
    try:
        for command in (["info"], ["sql", "SELECT 1"], ["ask", QUESTION], ["runs"]):
            result = afr("--db", str(loaded), *command)
            assert result.exit_code == 1, result.output
            assert f"is in use by another process: process {proc.pid} (" in result.output
            assert ") writes it" in result.output
            assert "not even to read" in result.output and "PostgreSQL" in result.output
    finally:
        proc.kill()
        proc.wait()


def test_readers_beside_a_reader(loaded: Path) -> None:
    """Commands that only read open the file read-only, beside another reader; afr ask,
    which logs, answers read-only with a note; a writer is told who reads."""
    proc = _holder(loaded, "r")
    try:
        db = ["--db", str(loaded)]
        assert afr(*db, "info").exit_code == 0
        assert afr(*db, "sql", "SELECT count(*) FROM nodes").exit_code == 0
        assert afr(*db, "cypher", "MATCH (p:paper)-[:paper_cites_paper]->(q:paper) RETURN p",
                   "--run").exit_code == 0
        asked = afr(*db, "ask", QUESTION)
        assert asked.exit_code == 0 and "Semi-supervised" in asked.stdout
        assert f"process {proc.pid} (" in asked.stderr and ") reads it" in asked.stderr
        assert "this run will not be logged" in asked.stderr
        assert "run not logged" in asked.stderr
        written = afr(*db, "embed", "--rebuild")
        assert written.exit_code == 1 and ") reads it" in written.output
    finally:
        proc.kill()
        proc.wait()
    assert json.loads(afr("--db", str(loaded), "info", "--json").output)["runs"] == 0


# -- item 6: the DBA path builds (or names) every vector index ------------------------------

def _as_role(url: str, role: str) -> str:
    if not url.startswith("postgresql://postgres:@/"):
        pytest.skip("the role test needs the pgserver test server")
    return url.replace("postgresql://postgres:@/", f"postgresql://{role}:@/", 1)


def test_dba_path_per_type_indexes(tmp_path: Path, pg_url: str, pg_schema_name: str,
                                   pg_admin: psycopg.Connection,
                                   monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(postgres_store, "TYPE_INDEX_MIN_NODES", 2)  # the toy's 3 papers
    db = ["--db", pg_url, "--schema", pg_schema_name]
    ddl = afr(*db, "init", "--print-sql", "--dim", "384").output
    writer = "w_" + pg_schema_name
    try:
        pg_admin.execute(ddl)
        assert afr(*db, "load", str(toy_skb(tmp_path / "skb"))).exit_code == 0
        pg_admin.execute(f'CREATE ROLE "{writer}" LOGIN')
        pg_admin.execute(f'GRANT USAGE ON SCHEMA "{pg_schema_name}" TO "{writer}"')
        pg_admin.execute(f'GRANT SELECT, INSERT, UPDATE, DELETE ON ALL TABLES IN SCHEMA '
                         f'"{pg_schema_name}" TO "{writer}"')
        rw = ["--db", _as_role(pg_url, writer), "--schema", pg_schema_name]
        embedded = afr(*rw, "embed")
        assert embedded.exit_code == 0, embedded.output
        assert re.search(r"emb_doc lacks its approximate indexes emb_doc_hnsw_t\d+",
                         embedded.stderr), embedded.stderr
        assert "only the table's owner may build them" in embedded.stderr
        info = json.loads(afr(*rw, "info", "--json").output)
        names = {i["name"] for i in info["vector_indexes"]}
        assert names == {"emb_doc_hnsw", "emb_doc_rel_hnsw"}
        # the owner's embed builds what is missing, and info lists it
        owner = afr(*db, "embed")
        assert owner.exit_code == 0 and "lacks" not in owner.stderr, owner.output
        info = json.loads(afr(*db, "info", "--json").output)
        typed = {i["name"] for i in info["vector_indexes"]} - names
        assert typed and all(re.fullmatch(r"emb_doc(_rel)?_hnsw_t\d+", n) for n in typed)
        assert "search:   HNSW emb_doc_hnsw" in afr(*db, "info").output
    finally:
        pg_admin.execute(f'DROP SCHEMA IF EXISTS "{pg_schema_name}" CASCADE')
        if pg_admin.execute("SELECT 1 FROM pg_roles WHERE rolname = %s", (writer,)).fetchall():
            pg_admin.execute(f'DROP OWNED BY "{writer}"')
            pg_admin.execute(f'DROP ROLE "{writer}"')


@pytest.mark.parametrize("db", ["postgresql://dba@db/kb", "new.duckdb"])
def test_printed_ddl_is_one_transaction_making_each_index_once(db: str, tmp_path: Path,
                                                               monkeypatch) -> None:
    monkeypatch.chdir(tmp_path)
    ddl = afr("--db", db, "init", "--print-sql", "--dim", "8").output
    statements = [s.strip() for s in ddl.split(";") if s.strip()]
    code = [re.sub(r"--[^\n]*\n", "", s).strip() for s in statements]
    assert code[0] == "BEGIN" and code[-1] == "COMMIT"
    made = re.findall(r"CREATE (?:UNIQUE )?INDEX IF NOT EXISTS (\w+)", ddl)
    assert made and len(made) == len(set(made)), sorted(made)
    if db.startswith("postgresql"):
        assert "the table owner's first 'afr embed' builds them" in ddl
    assert not list(tmp_path.iterdir())


def test_printed_duckdb_ddl_applies(tmp_path: Path, monkeypatch) -> None:
    import duckdb

    monkeypatch.chdir(tmp_path)
    ddl = afr("--db", "new.duckdb", "init", "--print-sql", "--dim", "8").output
    con = duckdb.connect(str(tmp_path / "applied.duckdb"))
    con.execute(ddl)
    con.close()
    info = json.loads(afr("--db", str(tmp_path / "applied.duckdb"), "info", "--json").output)
    assert info["schema_version"] > 0
