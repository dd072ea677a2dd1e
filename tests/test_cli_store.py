"""The store commands through the real CLI: exit codes, one-line errors, outputs."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from afr.cli.main import cli
from click.testing import CliRunner
from skbutil import toy_skb


@pytest.fixture
def runner() -> CliRunner:
    return CliRunner()


def invoke(runner: CliRunner, *args: str):
    return runner.invoke(cli, list(args), catch_exceptions=False)


def test_help_teaches(runner: CliRunner) -> None:
    result = invoke(runner, "--help")
    assert result.exit_code == 0
    for word in ("load", "embed", "info", "sql", "ask", "cypher", "demo"):
        assert word in result.output
    assert "afr ask" in result.output
    assert invoke(runner, "load", "--help").exit_code == 0


def test_version(runner: CliRunner) -> None:
    result = invoke(runner, "--version")
    assert result.exit_code == 0 and "afr" in result.output


def test_load_info_sql(runner: CliRunner, tmp_path: Path) -> None:
    db = str(tmp_path / "s.duckdb")
    skb = toy_skb(tmp_path / "skb")
    result = invoke(runner, "--db", db, "load", str(skb))
    assert result.exit_code == 0, result.output
    assert "8 nodes, 7 edges" in result.output
    info = invoke(runner, "--db", db, "info", "--json")
    data = json.loads(info.output)
    assert data["skb"] == "toy" and data["nodes"] == 8 and data["edges"] == 7
    assert {t["type"]: t["count"] for t in data["node_types"]}["paper"] == 3
    table = invoke(runner, "--db", db, "sql", "SELECT type, count(*) AS n FROM nodes "
                   "GROUP BY type ORDER BY type")
    assert table.exit_code == 0 and "author" in table.output and "─" in table.output
    as_json = invoke(runner, "--db", db, "sql", "SELECT ext_id FROM nodes ORDER BY id", "--json")
    assert json.loads(as_json.output)[0] == {"ext_id": "p1"}
    as_csv = invoke(runner, "--db", db, "sql", "SELECT ext_id FROM nodes ORDER BY id", "--csv")
    assert as_csv.output.splitlines()[:2] == ["ext_id", "p1"]


def test_sql_is_read_only(runner: CliRunner, tmp_path: Path) -> None:
    db = str(tmp_path / "s.duckdb")
    invoke(runner, "--db", db, "load", str(toy_skb(tmp_path / "skb")))
    result = invoke(runner, "--db", db, "sql", "DELETE FROM nodes")
    assert result.exit_code == 1
    assert result.output.startswith("afr: error:") and len(result.output.splitlines()) == 1
    count = invoke(runner, "--db", db, "sql", "SELECT count(*) AS n FROM nodes", "--json")
    assert json.loads(count.output) == [{"n": 8}]


def test_bad_sql_is_one_line(runner: CliRunner, tmp_path: Path) -> None:
    db = str(tmp_path / "s.duckdb")
    invoke(runner, "--db", db, "load", str(toy_skb(tmp_path / "skb")))
    result = invoke(runner, "--db", db, "sql", "SELEC nonsense")
    assert result.exit_code == 1 and len(result.output.strip().splitlines()) == 1


def test_failed_first_load_leaves_no_file(runner: CliRunner, tmp_path: Path) -> None:
    db = tmp_path / "new.duckdb"
    skb = toy_skb(tmp_path / "skb")
    (skb / "edges.csv").write_text("src,type,dst\np1,cites,nowhere\n")
    result = invoke(runner, "--db", str(db), "load", str(skb))
    assert result.exit_code == 1
    assert "nowhere" in result.output and len(result.output.strip().splitlines()) == 1
    assert not db.exists()


def test_load_twice_needs_replace(runner: CliRunner, tmp_path: Path) -> None:
    db = str(tmp_path / "s.duckdb")
    skb = str(toy_skb(tmp_path / "skb"))
    assert invoke(runner, "--db", db, "load", skb).exit_code == 0
    again = invoke(runner, "--db", db, "load", skb)
    assert again.exit_code == 1 and "--replace" in again.output
    assert invoke(runner, "--db", db, "load", skb, "--replace").exit_code == 0


def test_missing_source(runner: CliRunner, tmp_path: Path) -> None:
    result = invoke(runner, "--db", str(tmp_path / "s.duckdb"), "load", str(tmp_path / "nope"))
    assert result.exit_code == 1 and "no such file" in result.output


def test_postgres_url_unreachable(runner: CliRunner) -> None:
    result = invoke(runner, "--db", "postgresql://u:pw@127.0.0.1:1/x", "info")
    assert result.exit_code == 1 and "cannot connect" in result.output
    assert "pw" not in result.output


def test_load_into_postgres(runner: CliRunner, pg_url: str, pg_schema_name: str,
                            tmp_path: Path) -> None:
    skb = str(toy_skb(tmp_path / "skb"))
    result = invoke(runner, "--db", pg_url, "--schema", pg_schema_name, "load", skb)
    assert result.exit_code == 0, result.output
    info = json.loads(invoke(runner, "--db", pg_url, "--schema", pg_schema_name, "info",
                             "--json").output)
    assert info["nodes"] == 8 and info["edges"] == 7
    ro = invoke(runner, "--db", pg_url, "--schema", pg_schema_name, "sql", "DELETE FROM edges")
    assert ro.exit_code == 1 and "read-only" in ro.output
