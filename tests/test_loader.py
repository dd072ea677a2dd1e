"""Loading SKB directories into both stores: exact counts, clear errors, all or nothing."""

from __future__ import annotations

import gzip
import json
from pathlib import Path

import pytest
from skbutil import TOY_SCHEMA, toy_skb, write_skb

from afr.errors import LoadError
from afr.load import load_skb_dir
from afr.store import Store


def _counts(store: Store) -> tuple[int, int, int]:
    return store.query(
        "SELECT (SELECT count(*) FROM nodes), (SELECT count(*) FROM edges), "
        "(SELECT count(*) FROM node_aliases)"
    )[0]


@pytest.mark.parametrize("gz", [False, True])
def test_load_toy_exact(store: Store, tmp_path: Path, gz: bool) -> None:
    report = load_skb_dir(store, toy_skb(tmp_path / "skb", gz=gz), progress=False)
    assert (report.nodes, report.edges, report.aliases) == (8, 7, 1)
    assert _counts(store) == (8, 7, 1)
    schema = store.skb_schema()
    assert schema.name == "toy" and schema.directed is False
    assert schema.candidate_types == ["paper"]
    # labels map back to edge types: the CSV used "author_writes_paper" once
    assert store.query("SELECT count(*) FROM edges WHERE type = 'writes'")[0][0] == 3
    assert schema.edge_type("author_writes_paper") == "writes"
    counts = dict(store.query("SELECT type, node_count FROM node_types"))
    assert counts == {"paper": 3, "author": 3, "field": 2}
    attrs = {r[0]: r[1] for r in store.query("SELECT path, value_type FROM node_attributes")}
    assert attrs["year"] == "number" and attrs["venue.name"] == "string"
    assert attrs["published"] == "date"


def test_integer_ids_are_kept(store: Store, tmp_path: Path) -> None:
    nodes = [{"id": 10, "type": "paper", "name": "a"}, {"id": 7, "type": "paper", "name": "b"}]
    write_skb(tmp_path / "s", TOY_SCHEMA, nodes, [(10, "cites", 7)])
    load_skb_dir(store, tmp_path / "s", progress=False)
    assert store.query("SELECT id, ext_id FROM nodes ORDER BY id") == [(7, "7"), (10, "10")]
    assert store.query("SELECT src, dst FROM edges") == [(10, 7)]


def _broken(tmp_path: Path, nodes_text: str | None = None, edges_text: str | None = None,
            schema: dict | None = None) -> Path:
    d = toy_skb(tmp_path / "broken")
    if nodes_text is not None:
        (d / "nodes.jsonl").write_text(nodes_text)
    if edges_text is not None:
        (d / "edges.csv").write_text(edges_text)
    if schema is not None:
        (d / "skb.json").write_text(json.dumps(schema))
    return d


GOOD_NODES = "\n".join(json.dumps(n) for n in [
    {"id": "p1", "type": "paper", "name": "x"},
    {"id": "p2", "type": "paper", "name": "y"},
]) + "\n"


@pytest.mark.parametrize(
    ("nodes_text", "edges_text", "message"),
    [
        ('{"id": "p1", "type": "paper"}\n{"id": "p2", "type": "paper" oops\n', None,
         "malformed JSON"),
        ('{"id": "p1", "type": "poster"}\n', "src,type,dst\n", "unknown node type"),
        ('{"id": "p1", "type": "paper"}\n{"id": "p1", "type": "paper"}\n', "src,type,dst\n",
         "duplicate id"),
        ('{"type": "paper"}\n', "src,type,dst\n", "missing or invalid id"),
        ('[1, 2]\n', "src,type,dst\n", "not a JSON object"),
        ('{"id": "p1", "type": "paper", "attrs": [1]}\n', "src,type,dst\n", "attrs"),
        ('{"id": "p1", "type": "paper", "aliases": [1]}\n', "src,type,dst\n", "aliases"),
        (GOOD_NODES, "src,type,dst\np1,cites,p9\n", "target node not in nodes.jsonl"),
        (GOOD_NODES, "src,type,dst\np1,likes,p2\n", "unknown edge type"),
        (GOOD_NODES, "src,type,dst\np1,cites,p2\np1,cites,p2\n", "duplicate edge"),
        (GOOD_NODES, "src,type,dst\np1,cites\n", "Expected Number of Columns"),
        (GOOD_NODES, "from,type,to\np1,cites,p2\n", "header must be 'src,type,dst'"),
    ],
)
def test_broken_input_clear_error_and_store_unchanged(
    store: Store, tmp_path: Path, nodes_text: str, edges_text: str | None, message: str
) -> None:
    load_skb_dir(store, toy_skb(tmp_path / "good"), progress=False)
    before = _counts(store)
    bad = _broken(tmp_path, nodes_text, edges_text)
    with pytest.raises(LoadError) as info:
        load_skb_dir(store, bad, replace=True, progress=False)
    text = str(info.value)
    assert message in text
    assert "\n" not in text
    assert _counts(store) == before
    assert store.skb_name() == "toy"
    if store.dialect.name == "duckdb":  # no staging copy of the input left behind
        assert not store.run("load/staging_tables.sql")


def test_error_names_line_and_examples(duck_store: Store, tmp_path: Path) -> None:
    edges = "src,type,dst\np1,cites,p2\np1,cites,nope\np2,cites,gone\n"
    with pytest.raises(LoadError) as info:
        load_skb_dir(duck_store, _broken(tmp_path, GOOD_NODES, edges), progress=False)
    text = str(info.value)
    assert "edges.csv" in text and "2 × target node not in nodes.jsonl" in text
    assert "line 3 (nope)" in text and "line 4 (gone)" in text


def test_second_skb_needs_replace(store: Store, tmp_path: Path) -> None:
    load_skb_dir(store, toy_skb(tmp_path / "a"), progress=False)
    with pytest.raises(LoadError, match="--replace"):
        load_skb_dir(store, toy_skb(tmp_path / "b"), progress=False)
    schema = dict(TOY_SCHEMA, name="other")
    write_skb(tmp_path / "c", schema, [{"id": 1, "type": "paper", "name": "only"}], [])
    report = load_skb_dir(store, tmp_path / "c", replace=True, progress=False)
    assert report.replaced and _counts(store) == (1, 0, 0)
    assert store.skb_name() == "other"


@pytest.mark.parametrize(
    ("schema", "message"),
    [
        ({"node_types": {"a": {}}}, "'name' is required"),
        ({"name": "x", "node_types": {}}, "node_types"),
        ({"name": "x", "node_types": {"a": {}}, "candidate_types": ["b"]}, "unknown node types"),
        ({"name": "x", "node_types": {"a": {}},
          "edge_types": {"r": {"source": "a", "target": "zz"}}}, "unknown node type 'zz'"),
        ({"name": "x", "directed": "yes", "node_types": {"a": {}}}, "'directed'"),
    ],
)
def test_bad_skb_json(duck_store: Store, tmp_path: Path, schema: dict, message: str) -> None:
    with pytest.raises(LoadError, match=message):
        load_skb_dir(duck_store, _broken(tmp_path, schema=schema), progress=False)


def test_missing_files(duck_store: Store, tmp_path: Path) -> None:
    with pytest.raises(LoadError, match="not a directory"):
        load_skb_dir(duck_store, tmp_path / "nothing", progress=False)
    d = toy_skb(tmp_path / "skb")
    (d / "edges.csv").unlink()
    with pytest.raises(LoadError, match=r"missing edges\.csv"):
        load_skb_dir(duck_store, d, progress=False)


def test_corrupt_gzip(duck_store: Store, tmp_path: Path) -> None:
    d = toy_skb(tmp_path / "skb", gz=True)
    (d / "edges.csv.gz").write_bytes(gzip.compress(b"src,type,dst\np1,cites,p2\n")[:20])
    with pytest.raises(LoadError, match="edges.csv.gz"):
        load_skb_dir(duck_store, d, progress=False)
    assert duck_store.skb_name() is None
