"""Issue 24: an SKB's nodes and edges pointed at by name (`afr load DIR --nodes-table
lake.skb_nodes --edges-table lake.skb_edges`): tables the store's own catalog holds — a
DuckDB file's, a PostgreSQL database's, or whatever Spark's catalog names — read where
they are and loaded exactly
as the same rows from files; a name that is no table, one of afr's own, or not a plain
dotted name is refused in one line and nothing is loaded."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from afr.cli.main import cli
from click.testing import CliRunner
from skbutil import lake_tables, parquet_skb, toy_skb
from test_load_parquet import contents

from afr.errors import LoadError
from afr.load import load_skb_dir
from afr.store import Store, open_store


def schema_only(text: Path, out: Path) -> Path:
    """An SKB directory with skb.json alone: its tables are named, not beside it."""
    out.mkdir()
    shutil.copy(text / "skb.json", out / "skb.json")
    return out


def reference_contents(text: Path, tmp_path: Path) -> dict:
    reference = open_store(tmp_path / "reference.duckdb")
    load_skb_dir(reference, text, progress=False)
    found = contents(reference)
    reference.close()
    return found


def test_a_duckdb_files_own_tables_load_as_their_text_files_do(tmp_path: Path) -> None:
    text = toy_skb(tmp_path / "text")
    lake_tables(parquet_skb(text, tmp_path / "tables"), tmp_path / "kb.duckdb")
    store = open_store(tmp_path / "kb.duckdb")
    report = load_skb_dir(store, schema_only(text, tmp_path / "schema"), progress=False,
                          nodes_table="lake.skb_nodes", edges_table="lake.skb_edges")
    assert (report.nodes, report.edges, report.aliases) == (8, 7, 1)
    assert contents(store) == reference_contents(text, tmp_path)
    assert store.query("SELECT count(*) FROM lake.skb_edges") == [(7,)]  # left as it was
    store.close()


def test_one_table_named_and_the_other_a_file(tmp_path: Path) -> None:
    text = toy_skb(tmp_path / "text")
    lake_tables(parquet_skb(text, tmp_path / "tables"), tmp_path / "kb.duckdb")
    store = open_store(tmp_path / "kb.duckdb")
    report = load_skb_dir(store, text, nodes_table="lake.skb_nodes", progress=False)
    assert (report.nodes, report.edges) == (8, 7)
    store.close()


@pytest.mark.parametrize(("name", "error"), [
    ("lake.nowhere", r"^lake\.nowhere: no such table in .*kb\.duckdb$"),
    ("main.nodes", r"^main\.nodes: that is a table of afr's own"),
    ("skb_nodes", r"^'skb_nodes': name the table with its schema or database"),
    ("lake.skb_nodes; DROP TABLE lake.skb_edges", r"in plain names joined by dots$"),
])
def test_a_name_that_is_no_skb_table_is_refused_and_nothing_loads(
        tmp_path: Path, name: str, error: str) -> None:
    text = toy_skb(tmp_path / "text")
    lake_tables(parquet_skb(text, tmp_path / "tables"), tmp_path / "kb.duckdb")
    store = open_store(tmp_path / "kb.duckdb")
    load_skb_dir(store, text, progress=False)  # an SKB the refused load must not touch
    before = contents(store)
    with pytest.raises(LoadError, match=error):
        load_skb_dir(store, schema_only(text, tmp_path / "schema"), replace=True,
                     nodes_table=name, edges_table="lake.skb_edges", progress=False)
    assert contents(store) == before
    assert store.query("SELECT count(*) FROM lake.skb_edges") == [(7,)]
    store.close()


def test_a_table_with_a_problem_is_named_like_a_file(tmp_path: Path) -> None:
    import duckdb

    text = toy_skb(tmp_path / "text")
    lake_tables(parquet_skb(text, tmp_path / "tables"), tmp_path / "kb.duckdb")
    con = duckdb.connect(str(tmp_path / "kb.duckdb"))
    con.execute("INSERT INTO lake.skb_edges VALUES ('p1', 'cites', 'nowhere')")
    con.close()
    store = open_store(tmp_path / "kb.duckdb")
    with pytest.raises(LoadError, match=r"^lake\.skb_edges: 1 problem\(s\): 1 × target node "
                                        r"not in lake\.skb_nodes, e\.g\. row \d+ \(nowhere\)"):
        load_skb_dir(store, schema_only(text, tmp_path / "schema"), progress=False,
                     nodes_table="lake.skb_nodes", edges_table="lake.skb_edges")
    assert store.skb_name() is None
    store.close()


def test_named_tables_from_the_command_line(tmp_path: Path,
                                            monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    text = toy_skb(tmp_path / "text")
    lake_tables(parquet_skb(text, tmp_path / "tables"), tmp_path / "kb.duckdb")
    schema = schema_only(text, tmp_path / "schema")
    runner = CliRunner()
    named = ["--nodes-table", "lake.skb_nodes", "--edges-table", "lake.skb_edges"]
    done = runner.invoke(cli, ["--db", "kb.duckdb", "load", str(schema), *named])
    assert done.exit_code == 0, done.output
    assert "loaded SKB 'toy': 8 nodes, 7 edges, 1 aliases" in done.output
    refused = runner.invoke(cli, ["--db", "other.duckdb", "load", str(schema), *named])
    assert refused.exit_code == 1
    assert refused.output.strip() == \
        "afr: error: lake.skb_nodes: no such table in other.duckdb"
    assert not (tmp_path / "other.duckdb").exists()
    stark = runner.invoke(cli, ["--db", "kb.duckdb", "load", str(schema), "--format",
                                "stark", "--nodes-table", "lake.skb_nodes"])
    assert stark.exit_code == 1 and "--nodes-table: for an SKB directory" in stark.output


def test_a_postgresql_databases_own_tables_load_as_their_text_files_do(
        pg_store: Store, pg_url: str, tmp_path: Path) -> None:
    """Tables of the store's PostgreSQL database, in a schema of the user's: jsonb attrs
    and text[] aliases as a user would keep them, read where they are."""
    import json

    import psycopg

    text = toy_skb(tmp_path / "text")
    lake = f"lake_{tmp_path.name.replace('-', '_').lower()[-20:]}"
    nodes = [json.loads(line) for line in (text / "nodes.jsonl").read_text().splitlines()]
    edges = [line.split(",") for line in (text / "edges.csv").read_text().splitlines()[1:]]
    with psycopg.connect(pg_url, autocommit=True) as con:
        con.execute(f"CREATE SCHEMA {lake}")
        con.execute(f"CREATE TABLE {lake}.skb_nodes (id text, type text, name text, "
                    "text text, attrs jsonb, aliases text[])")
        con.execute(f"CREATE TABLE {lake}.skb_edges (src text, type text, dst text)")
        for n in nodes:
            con.execute(f"INSERT INTO {lake}.skb_nodes VALUES (%s, %s, %s, %s, %s, %s)",
                        (n["id"], n["type"], n.get("name"), n.get("text"),
                         psycopg.types.json.Jsonb(n.get("attrs")), n.get("aliases")))
        for src, kind, dst in edges:
            con.execute(f"INSERT INTO {lake}.skb_edges VALUES (%s, %s, %s)", (src, kind, dst))
    try:
        report = load_skb_dir(pg_store, schema_only(text, tmp_path / "schema"),
                              nodes_table=f"{lake}.skb_nodes",
                              edges_table=f"{lake}.SKB_Edges", progress=False)
        assert (report.nodes, report.edges, report.aliases) == (8, 7, 1)
        assert contents(pg_store) == reference_contents(text, tmp_path)
        own = f"{pg_store.schema}.nodes"
        with pytest.raises(LoadError, match=rf"^{own}: that is a table of afr's own"):
            load_skb_dir(pg_store, text, nodes_table=own, replace=True, progress=False)
        with pytest.raises(LoadError, match=rf"^{lake}\.nowhere: no such table in "):
            load_skb_dir(pg_store, text, nodes_table=f"{lake}.nowhere", replace=True,
                         progress=False)
        assert contents(pg_store) == reference_contents(text, tmp_path / "again")
    finally:
        with psycopg.connect(pg_url, autocommit=True) as con:
            con.execute(f"DROP SCHEMA {lake} CASCADE")


def test_a_spark_catalogs_table_loads_as_its_text_files_do(spark_store: Store,
                                                           tmp_path: Path) -> None:
    """A table of the Spark session's catalog (here Parquet-backed; a session configured
    for Delta or Iceberg names those the same way), read by Spark, loaded as the files."""
    text = toy_skb(tmp_path / "text")
    tables = parquet_skb(text, tmp_path / "tables")
    spark = spark_store.dataframe_session()
    database = "lake_" + tmp_path.name.replace("-", "_").lower()[-20:]
    spark.sql(f"CREATE DATABASE {database} LOCATION '{tmp_path / 'lake'}'")
    try:
        for stem in ("nodes", "edges"):
            spark.sql(f"CREATE TABLE {database}.skb_{stem} USING parquet "
                      f"LOCATION '{tables / f'{stem}.parquet'}'")
        report = load_skb_dir(spark_store, schema_only(text, tmp_path / "schema"),
                              nodes_table=f"{database}.skb_nodes",
                              edges_table=f"{database}.skb_edges", progress=False)
        assert (report.nodes, report.edges, report.aliases) == (8, 7, 1)
        assert contents(spark_store, "STRING") == reference_contents(text, tmp_path)
        with pytest.raises(LoadError, match=rf"^{database}\.nowhere: no such table in "):
            load_skb_dir(spark_store, text, nodes_table=f"{database}.nowhere",
                         replace=True, progress=False)
        assert spark_store.query("SELECT count(*) FROM edges") == [(7,)]
    finally:
        spark.sql(f"DROP DATABASE IF EXISTS {database} CASCADE")
