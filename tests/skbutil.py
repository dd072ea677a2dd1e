"""Helpers for tests: write SKB directories (skb-format.md) from Python data."""

from __future__ import annotations

import csv
import gzip
import json
import shutil
from pathlib import Path
from typing import Any


def write_skb(
    directory: Path,
    schema: dict[str, Any],
    nodes: list[dict[str, Any]],
    edges: list[tuple[Any, str, Any]],
    questions: list[tuple[Any, str, list[Any]]] | None = None,
    *,
    gz: bool = False,
) -> Path:
    directory.mkdir(parents=True, exist_ok=True)
    (directory / "skb.json").write_text(json.dumps(schema), encoding="utf-8")

    def opener(name: str):
        if gz:
            return gzip.open(directory / f"{name}.gz", "wt", encoding="utf-8", newline="")
        return open(directory / name, "w", encoding="utf-8", newline="")

    with opener("nodes.jsonl") as fh:
        for node in nodes:
            fh.write(json.dumps(node) + "\n")
    with opener("edges.csv") as fh:
        writer = csv.writer(fh, lineterminator="\n")
        writer.writerow(["src", "type", "dst"])
        for src, etype, dst in edges:
            writer.writerow([src, etype, dst])
    if questions is not None:
        with opener("questions.csv") as fh:
            writer = csv.writer(fh, lineterminator="\n")
            writer.writerow(["id", "query", "answer_ids"])
            for qid, query, answers in questions:
                writer.writerow([qid, query, json.dumps(answers)])
    return directory


TOY_SCHEMA: dict[str, Any] = {
    "name": "toy",
    "description": "papers, authors and fields",
    "directed": False,
    "candidate_types": ["paper"],
    "node_types": {
        "paper": {"description": "a research paper"},
        "author": {"description": "a person who writes papers"},
        "field": {"description": "a field of study"},
    },
    "edge_types": {
        "writes": {"source": "author", "target": "paper", "label": "author_writes_paper"},
        "cites": {"source": "paper", "target": "paper", "label": "paper_cites_paper"},
        "has_field": {"source": "paper", "target": "field", "label": "paper_has_field"},
    },
}


def toy_skb(directory: Path, *, gz: bool = False) -> Path:
    nodes = [
        {"id": "p1", "type": "paper", "name": "Deep residual learning",
         "text": "Residual networks for image recognition.", "attrs": {"year": 2016}},
        {"id": "p2", "type": "paper", "name": "Graph attention networks",
         "text": "Attention over graph neighbourhoods.", "attrs": {"year": 2018,
                                                                 "venue": {"name": "ICLR"}}},
        {"id": "p3", "type": "paper", "name": "Semi-supervised classification with GCNs",
         "text": "Graph convolutional networks.", "attrs": {"year": 2017,
                                                           "published": "2017-04-24"}},
        {"id": "a1", "type": "author", "name": "Kaiming He", "aliases": ["K. He"]},
        {"id": "a2", "type": "author", "name": "Petar Velickovic"},
        {"id": "a3", "type": "author", "name": "Thomas Kipf"},
        {"id": "f1", "type": "field", "name": "computer vision"},
        {"id": "f2", "type": "field", "name": "graph learning"},
    ]
    edges = [
        ("a1", "writes", "p1"),
        ("a2", "author_writes_paper", "p2"),
        ("a3", "writes", "p3"),
        ("p2", "cites", "p3"),
        ("p1", "has_field", "f1"),
        ("p2", "has_field", "f2"),
        ("p3", "has_field", "f2"),
    ]
    questions = [
        (0, "Which paper by Thomas Kipf is about graph learning?", ["p3"]),
        (1, "Which graph learning paper cites the GCN paper?", ["p2"]),
    ]
    return write_skb(directory, TOY_SCHEMA, nodes, edges, questions, gz=gz)


def two_answer_type_store(directory: Path) -> Path:
    """The toy SKB with two candidate types (so step 1 asks the LLM too), loaded and
    embedded into ``directory/toy.duckdb``."""
    import afr
    from afr.store import DuckDBStore

    skb = toy_skb(directory / "skb")
    schema = json.loads((skb / "skb.json").read_text())
    schema["candidate_types"] = ["paper", "author"]
    (skb / "skb.json").write_text(json.dumps(schema))
    store = DuckDBStore(directory / "toy.duckdb")
    afr.load_skb_dir(store, skb, progress=False)
    afr.embed_store(store, afr.make_embedder("hash"), progress=False)
    store.close()
    return directory / "toy.duckdb"


NODES = "SELECT id, type, name, text, attrs, aliases FROM read_json_auto($src)"
# attrs as JSON text, as a table written by another tool may hold it
NODES_TEXT = ("SELECT id, type, name, text, CAST(to_json(attrs) AS VARCHAR) AS attrs, aliases "
              "FROM read_json_auto($src)")
EDGES = "SELECT * FROM read_csv($src, header = true, all_varchar = true)"


def parquet_skb(text_skb: Path, out: Path, *, nodes: str = NODES,
                edge_parts: int = 1) -> Path:
    """The SKB directory ``text_skb`` with its tables written as Parquet (attrs a struct
    unless ``nodes`` says otherwise; edges as ``edge_parts`` part files in a folder when
    more than one)."""
    import duckdb

    out.mkdir(parents=True)
    shutil.copy(text_skb / "skb.json", out / "skb.json")
    con = duckdb.connect()
    con.execute(f"COPY ({nodes}) TO '{out / 'nodes.parquet'}' (FORMAT parquet)",
                {"src": str(text_skb / "nodes.jsonl")})
    if edge_parts == 1:
        con.execute(f"COPY ({EDGES}) TO '{out / 'edges.parquet'}' (FORMAT parquet)",
                    {"src": str(text_skb / "edges.csv")})
    else:
        (out / "edges.parquet").mkdir()
        for part in range(edge_parts):
            con.execute(f"COPY (SELECT * FROM ({EDGES}) WHERE hash(src) % {edge_parts} = "
                        f"{part}) TO '{out / 'edges.parquet' / f'part-{part}.parquet'}' "
                        "(FORMAT parquet)", {"src": str(text_skb / "edges.csv")})
    con.close()
    return out


def _arrow(text_skb: Path) -> tuple:  # (nodes, edges) as pyarrow Tables
    """The toy SKB's nodes (attrs a struct) and edges as Arrow tables."""
    import duckdb

    con = duckdb.connect()
    nodes = con.sql(NODES, params={"src": str(text_skb / "nodes.jsonl")}).to_arrow_table()
    edges = con.sql(EDGES, params={"src": str(text_skb / "edges.csv")}).to_arrow_table()
    con.close()
    return nodes, edges


def _with_schema(text_skb: Path, out: Path) -> Path:
    out.mkdir(parents=True)
    shutil.copy(text_skb / "skb.json", out / "skb.json")
    return out


def delta_skb(text_skb: Path, out: Path) -> Path:
    """The SKB with its tables as Delta tables ``nodes/`` and ``edges/``, written so that
    only the current version gives the SKB: an extra edge, appended, then deleted."""
    import pyarrow as pa
    from deltalake import DeltaTable, write_deltalake

    out = _with_schema(text_skb, out)
    nodes, edges = _arrow(text_skb)
    write_deltalake(str(out / "nodes"), nodes)
    write_deltalake(str(out / "edges"), edges.slice(0, 4))
    write_deltalake(str(out / "edges"), edges.slice(4), mode="append")
    stray = pa.table({"src": ["p1"], "type": ["cites"], "dst": ["nowhere"]},
                     schema=edges.schema)
    write_deltalake(str(out / "edges"), stray, mode="append")
    DeltaTable(str(out / "edges")).delete("dst = 'nowhere'")
    return out


def iceberg_skb(text_skb: Path, out: Path, catalog_dir: Path) -> Path:
    """The SKB with its tables as Iceberg tables ``nodes/`` and ``edges/`` (a SQL catalog
    outside the SKB keeps their names; afr reads the metadata files only), the edges in
    two snapshots."""
    from pyiceberg.catalog.sql import SqlCatalog

    out = _with_schema(text_skb, out)
    nodes, edges = _arrow(text_skb)
    catalog_dir.mkdir(parents=True)
    catalog = SqlCatalog("skb", uri=f"sqlite:///{catalog_dir / 'catalog.db'}",
                         warehouse=catalog_dir.as_uri())
    catalog.create_namespace("toy")
    for name, table in (("nodes", nodes), ("edges", edges)):
        iceberg = catalog.create_table(f"toy.{name}", schema=table.schema,
                                       location=(out / name).as_uri())
        if name == "edges":
            iceberg.append(table.slice(0, 3))
            table = table.slice(3)
        iceberg.append(table)
    catalog.engine.dispose()
    return out


def lake_tables(tables: Path, store_file: Path, *, prefix: str = "skb_") -> None:
    """The Parquet SKB ``tables`` (``parquet_skb``) as a user's own tables of a DuckDB file,
    lake.{prefix}nodes and lake.{prefix}edges (`afr load --nodes-table`)."""
    import duckdb

    con = duckdb.connect(str(store_file))
    con.execute("CREATE SCHEMA lake")
    for stem in ("nodes", "edges"):
        con.execute(f"CREATE TABLE lake.{prefix}{stem} AS "
                    f"SELECT * FROM read_parquet('{tables / f'{stem}.parquet'}')")
    con.close()
