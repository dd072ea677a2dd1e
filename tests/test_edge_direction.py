"""Edge direction per edge type (issue 10, item 15): skb.json declares it, the store keeps
it, grounding follows an arrow only over directed edge types, and an ignored arrow is
reported. The demo's relations are directed: "classes inheriting from HTTPServer" are its
subclasses, never its base class."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from afr.cli.main import cli
from click.testing import CliRunner
from skbutil import write_skb

from afr.demo import ensure_demo_store
from afr.embed import make_embedder
from afr.errors import LoadError
from afr.ground import GroundingQuery, GSymbol, GTriplet, ground
from afr.load import load_skb_dir
from afr.load.skb_json import parse_skb_json
from afr.resources import demo_skb_dir
from afr.store import DuckDBStore, Store
from afr.vectors import embed_store

SCHEMA = {
    "name": "mixed", "directed": True,
    "node_types": {"a": {}},
    "edge_types": {"parent": {"source": "a", "target": "a"},
                   "near": {"source": "a", "target": "a", "directed": False}},
}
NODES = [{"id": i, "type": "a", "name": f"n{i}"} for i in range(4)]
EDGES = [(1, "parent", 0), (2, "near", 0), (0, "near", 3)]  # 1's parent is 0


def test_skb_json_takes_a_direction_per_edge_type() -> None:
    schema = parse_skb_json(SCHEMA)
    assert schema.edge_directed("parent") is True
    assert schema.edge_directed("near") is False
    assert schema.to_json()["edge_types"]["near"]["directed"] is False
    bad = json.loads(json.dumps(SCHEMA))
    bad["edge_types"]["near"]["directed"] = "no"
    with pytest.raises(LoadError, match="'directed' must be true or false"):
        parse_skb_json(bad)


def _answers(store: Store, edge_type: str, directed: bool) -> list[str]:
    """Ext ids of the answers to (y)-[:edge_type]->(c {n0}), arrow or not."""
    ext = {int(d.id): d.ext_id for d in store.node_details(range(100)).values()}
    n0 = next(i for i, e in ext.items() if e == "0")
    query = GroundingQuery(
        {"y": GSymbol("y", "a"), "c": GSymbol("c", "a", candidates=(n0,))},
        (GTriplet("y", edge_type, "c", directed),), "y")
    return sorted(ext[n] for n, _ in ground(store, query).answers)


def test_the_store_keeps_the_direction_and_grounding_follows_it(store: Store,
                                                                tmp_path: Path) -> None:
    load_skb_dir(store, write_skb(tmp_path / "skb", SCHEMA, NODES, EDGES), progress=False)
    schema = store.skb_schema()
    assert schema.edge_directed("parent") and not schema.edge_directed("near")
    assert _answers(store, "parent", True) == ["1"]  # 1 -parent-> 0, not the other way
    assert _answers(store, "near", True) == ["2", "3"]  # undirected: the arrow is ignored
    assert _answers(store, "near", False) == ["2", "3"]


def test_an_ignored_arrow_is_reported(tmp_path: Path) -> None:
    db = tmp_path / "afr.duckdb"
    store = DuckDBStore(db)
    load_skb_dir(store, write_skb(tmp_path / "skb", SCHEMA, NODES, EDGES), progress=False)
    embed_store(store, make_embedder("hash"), progress=False)
    store.close()
    runner = CliRunner()
    result = runner.invoke(cli, ["--db", str(db), "cypher", "--run",
                                 "MATCH (y:a)-[:near]->(c:a {name: 'n0'}) RETURN y"])
    assert result.exit_code == 0, result.output
    assert "arrow of (y)-[:near]->(c) ignored: near is undirected" in result.output
    result = runner.invoke(cli, ["--db", str(db), "cypher", "--run",
                                 "MATCH (y:a)-[:parent]->(c:a {name: 'n0'}) RETURN y"])
    assert "ignored" not in result.output


def test_the_demo_declares_its_relations_directed(tmp_path: Path) -> None:
    demo = json.loads((demo_skb_dir() / "skb.json").read_text(encoding="utf-8"))
    schema = parse_skb_json(demo)
    assert all(schema.edge_directed(e) for e in schema.edge_types)
    path = ensure_demo_store(tmp_path / "demo.duckdb", progress=False)
    result = CliRunner().invoke(cli, [
        "--db", str(path), "cypher", "--run", "MATCH (c:class)-[:class_inherits_from_class]->"
        "(b:class {name: 'HTTPServer'}) RETURN c"])
    assert result.exit_code == 0, result.output
    lines = result.output.splitlines()
    level_one = [line for line in lines if line.split()[3:4] == ["1"]]
    assert any("ThreadingHTTPServer" in line for line in level_one)
    # its base class (socketserver.TCPServer) is not among the exact-match answers
    assert not any("class:socketserver.TCPServer " in line + " " for line in level_one)
    assert "ignored" not in result.output
