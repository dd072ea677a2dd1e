"""The store commands through the real CLI: exit codes, one-line errors, outputs."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from afr.cli.main import cli
from click.testing import CliRunner
from skbutil import toy_skb

from afr.store import PostgresStore


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


def test_python_dash_m_afr() -> None:
    result = subprocess.run([sys.executable, "-m", "afr", "--version"], capture_output=True,
                            text=True, timeout=60)
    assert result.returncode == 0 and result.stdout.startswith("afr")


def test_which_store(runner: CliRunner, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
                     ) -> None:
    """--db, else $AFR_DB, else ./afr.duckdb; commands that only read fall back to the
    demo store (set up on first use) when nothing is chosen and ./afr.duckdb is absent."""
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("AFR_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.delenv("AFR_DB", raising=False)
    skb = toy_skb(tmp_path / "skb")
    chosen = tmp_path / "chosen.duckdb"
    monkeypatch.setenv("AFR_DB", str(chosen))
    assert invoke(runner, "load", str(skb)).exit_code == 0
    assert chosen.exists() and not (tmp_path / "afr.duckdb").exists()
    assert json.loads(invoke(runner, "info", "--json").output)["store"] == str(chosen)
    monkeypatch.delenv("AFR_DB")
    # the first read builds the demo store, with a note on stderr: the JSON is stdout
    demo = json.loads(invoke(runner, "info", "--json").stdout)
    assert demo["store"] == str(tmp_path / "cache" / "demo.duckdb") and demo["skb"]
    assert invoke(runner, "init").exit_code == 0  # a write command: ./afr.duckdb
    assert (tmp_path / "afr.duckdb").exists()
    here = json.loads(invoke(runner, "info", "--json").output)
    assert Path(here["store"]).resolve() == (tmp_path / "afr.duckdb").resolve()
    assert not here["skb"]
    given = json.loads(invoke(runner, "--db", str(chosen), "info", "--json").output)
    assert given["store"] == str(chosen)


def test_unknown_url_scheme(runner: CliRunner, tmp_path: Path,
                            monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    result = invoke(runner, "--db", "mysql://me@host/kb", "info")
    assert result.exit_code == 1 and "unsupported store URL scheme" in result.output
    assert not list(tmp_path.iterdir())  # no file called mysql:


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


def test_postgres_buffer_pool_is_reported(
        runner: CliRunner, pg_url: str, pg_schema_name: str, tmp_path: Path,
        monkeypatch: pytest.MonkeyPatch) -> None:
    """`afr info` shows the server's shared_buffers next to afr's HNSW indexes."""
    db = ["--db", pg_url, "--schema", pg_schema_name]
    assert invoke(runner, *db, "load", str(toy_skb(tmp_path / "skb"))).exit_code == 0
    assert invoke(runner, *db, "embed", "--no-index").exit_code == 0
    monkeypatch.setattr(PostgresStore, "server_memory", lambda self: (128 << 20, 3 << 30))
    info = invoke(runner, *db, "info")
    assert info.exit_code == 0
    assert "server:   shared_buffers 128 MB, afr's HNSW indexes 3.0 GB" in info.output
    data = json.loads(invoke(runner, *db, "info", "--json").output)
    assert data["server_memory"] == {"shared_buffers": 128 << 20, "vector_indexes": 3 << 30}


def test_index_records_its_tokeniser_and_rebuild_changes_it(
        runner: CliRunner, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """`afr index` says which tokeniser made its terms; after the settings change it, the
    index is refused with a one-line error (by `afr index` and by `afr ask`) until
    `afr index --rebuild`."""
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "xdg"))
    monkeypatch.delenv("AFR_CONFIG", raising=False)
    db = str(tmp_path / "s.duckdb")
    assert invoke(runner, "--db", db, "load", str(toy_skb(tmp_path / "skb"))).exit_code == 0
    assert invoke(runner, "--db", db, "embed", "--no-index").exit_code == 0
    first = invoke(runner, "--db", db, "index")
    assert first.exit_code == 0
    assert first.output.startswith("lexical index (Snowball english stems, stopwords "
                                   "dropped): 8 nodes indexed now")

    def ranked() -> list[str]:
        out = invoke(runner, "--db", db, "ask", "a neighbourhood", "--method",
                     "bm25", "--offline", "--json", "--no-log")
        assert out.exit_code == 0, out.output
        return [a["ext_id"] for a in json.loads(out.output)["answers"]]
    stemmed = ranked()
    assert stemmed == ["p2"]  # "neighbourhood" meets "neighbourhoods" only as stems
    cfg = tmp_path / "afr.toml"
    cfg.write_text('[bm25]\nstemmer = "none"\n')
    for args in (("index",), ("ask", "graph networks", "--offline")):
        refused = invoke(runner, "--db", db, *args)
        assert refused.exit_code == 1, refused.output
        assert refused.output.startswith("afr: error: the lexical index was built with "
                                         "Snowball english stems, stopwords dropped; the "
                                         "settings ask for words unstemmed")
        assert "afr index --rebuild" in refused.output
        assert len(refused.output.splitlines()) == 1
    rebuilt = invoke(runner, "--db", db, "index", "--rebuild")
    assert rebuilt.exit_code == 0
    assert rebuilt.output.startswith("lexical index (words unstemmed, stopwords dropped): "
                                     "emptied and built anew: 8 nodes indexed now")
    assert ranked() == []
    cfg.unlink()
    assert invoke(runner, "--db", db, "index", "--rebuild").exit_code == 0
    assert ranked() == stemmed
