"""Issue 24: an SKB whose nodes and edges are Parquet tables (`afr load --format parquet`)
loads into every store exactly as its JSON lines and CSV do, checked the same way."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import duckdb
import pytest
from afr.cli.main import cli
from click.testing import CliRunner
from skbutil import NODES, NODES_TEXT, parquet_skb, toy_skb

from afr.errors import LoadError
from afr.load import load_skb_dir
from afr.store import Store, open_store


def contents(store: Store, text_type: str = "VARCHAR") -> dict[str, list]:
    """Everything a load writes that a question reads, in a comparable order (``text_type``:
    the store's name for text, STRING on Spark)."""
    nodes = store.query(f"SELECT ext_id, type, name, text, CAST(attrs AS {text_type}) "
                        "FROM nodes ORDER BY ext_id")
    return {  # attrs parsed: each store writes JSON its own way
        "nodes": [(*row[:4], json.loads(row[4]) if isinstance(row[4], str) and row[4]
                   else row[4] or None) for row in nodes],
        "edges": [tuple(r) for r in store.query("SELECT s.ext_id, e.type, d.ext_id FROM edges e "
                             "JOIN nodes s ON s.id = e.src JOIN nodes d ON d.id = e.dst "
                             "ORDER BY 1, 2, 3")],
        "aliases": [tuple(r) for r in store.query("SELECT n.ext_id, a.alias FROM node_aliases a "
                               "JOIN nodes n ON n.id = a.node_id ORDER BY 1, 2")],
        "attributes": [tuple(r) for r in store.query("SELECT type, path, value_type, node_count "
                                  "FROM node_attributes ORDER BY 1, 2")],
    }


@pytest.mark.parametrize("nodes", [NODES, NODES_TEXT], ids=["attrs-struct", "attrs-text"])
def test_parquet_tables_load_as_their_text_files_do(store: Store, tmp_path: Path,
                                                     nodes: str) -> None:
    text = toy_skb(tmp_path / "text")
    tables = parquet_skb(text, tmp_path / "tables", nodes=nodes, edge_parts=2)
    report = load_skb_dir(store, tables, tables="parquet", progress=False)
    assert (report.nodes, report.edges, report.aliases) == (8, 7, 1)
    reference = open_store(tmp_path / "text.duckdb")
    load_skb_dir(reference, text, progress=False)
    assert contents(store) == contents(reference)
    reference.close()


def test_parquet_problems_are_named_by_row_and_nothing_is_loaded(duck_store: Store,
                                                                 tmp_path: Path) -> None:
    text = toy_skb(tmp_path / "text")
    bad_type = parquet_skb(text, tmp_path / "bad", nodes=NODES.replace(
        "SELECT id, type,", "SELECT id, CASE WHEN id = 'a2' THEN 'robot' ELSE type END AS type,"))
    with pytest.raises(LoadError, match=r"nodes\.parquet: 1 problem\(s\): 1 × unknown node "
                                         r"type, e\.g\. row 5 \(a2: robot\)"):
        load_skb_dir(duck_store, bad_type, progress=False)
    dangling = parquet_skb(text, tmp_path / "dangling")
    duckdb.connect().execute(
        f"COPY (SELECT src, type, CASE WHEN dst = 'p2' THEN 'p9' ELSE dst END AS dst "
        f"FROM read_parquet('{dangling / 'edges.parquet'}')) TO "
        f"'{tmp_path / 'edges.parquet'}' (FORMAT parquet)").close()
    shutil.move(tmp_path / "edges.parquet", dangling / "edges.parquet")
    with pytest.raises(LoadError, match=r"edges\.parquet: \d+ problem\(s\): \d+ × target "
                                         r"node not in nodes\.parquet, e\.g\. row \d+ \(p9\)"):
        load_skb_dir(duck_store, dangling, progress=False)
    no_id = parquet_skb(text, tmp_path / "no-id", nodes=NODES.replace("SELECT id,",
                                                                        "SELECT id AS key,"))
    with pytest.raises(LoadError, match=r"nodes\.parquet: no column 'id' \(its columns: key, "):
        load_skb_dir(duck_store, no_id, progress=False)
    with pytest.raises(LoadError, match=r"missing nodes\.parquet$"):
        load_skb_dir(duck_store, text, tables="parquet", progress=False)
    assert duck_store.skb_name() is None


def test_load_format_parquet_from_the_command_line(tmp_path: Path,
                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    text = toy_skb(tmp_path / "text")
    loads_and_refuses(tmp_path, parquet_skb(text, tmp_path / "tables"), text, "parquet",
                      "missing nodes.parquet")


def loads_and_refuses(here: Path, tables: Path, text: Path, fmt: str, missing: str) -> None:
    """``afr load TABLES --format FMT`` loads the toy SKB into ./kb.duckdb; the same on
    its text files is refused in one line (``missing``), leaving no store behind."""
    runner = CliRunner()
    done = runner.invoke(cli, ["--db", "kb.duckdb", "load", str(tables), "--format", fmt])
    assert done.exit_code == 0, done.output
    assert "loaded SKB 'toy': 8 nodes, 7 edges, 1 aliases" in done.output
    refused = runner.invoke(cli, ["--db", "other.duckdb", "load", str(text), "--format", fmt])
    assert refused.exit_code != 0 and missing in refused.output
    assert "Traceback" not in refused.output and not (here / "other.duckdb").exists()
