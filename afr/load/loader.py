"""`afr load`: an SKB directory (or a STaRK dataset) into a store, all or nothing."""

from __future__ import annotations

import datetime as dt
import json
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path

import duckdb
import numpy as np

from afr.errors import LoadError, StoreError
from afr.load.skb_json import read_skb_json
from afr.load.stage import (
    StageResult,
    find_table,
    stage_attribute_catalog,
    stage_edges,
    stage_nodes,
    staged_edge_pairs,
    staged_type_counts,
)
from afr.load.tables import CatalogTable, TableFormat
from afr.progress import Phases
from afr.store.base import Store, check_table_name
from afr.store.ddl import own_table_names
from afr.store.names import build_name_index
from afr.store.skb import SkbSchema


@dataclass
class LoadReport:
    skb: str
    store: str
    nodes: int
    edges: int
    aliases: int
    seconds: float
    replaced: bool
    warnings: list[str] = field(default_factory=list)

    @property
    def edges_per_second(self) -> float:
        return self.edges / self.seconds if self.seconds > 0 else float("inf")


def load_skb_dir(
    store: Store, directory: str | Path, *, replace: bool = False, progress: bool | None = None,
    tables: TableFormat | None = None, nodes_table: str | None = None,
    edges_table: str | None = None,
) -> LoadReport:
    """Load an SKB directory (docs/skb-format.md) into ``store``; on any error nothing
    changes. Its nodes and edges are JSON lines and CSV, or tables: Parquet, Delta or
    Iceberg (``tables`` insists on that format; None takes what is there) — or tables of
    the store's own catalog that ``nodes_table`` and ``edges_table`` name
    (``lake.skb_nodes``), read where they are; the directory then needs only skb.json."""
    directory = Path(directory)
    if not directory.is_dir():
        raise LoadError(f"{directory}: not a directory (expected an SKB directory with skb.json)")
    schema = read_skb_json(directory / "skb.json")
    nodes_path = (catalog_table(store, nodes_table) if nodes_table
                  else find_table(directory, "nodes.jsonl", tables))
    edges_path = (catalog_table(store, edges_table) if edges_table
                  else find_table(directory, "edges.csv", tables))

    def stage(con: duckdb.DuckDBPyConnection, phases: Phases) -> StageResult:
        phases.next("reading and checking nodes")
        result = stage_nodes(con, nodes_path, schema)
        phases.next("reading and checking edges")
        stage_edges(con, edges_path, schema, result, nodes_file=nodes_path.name)
        return result

    return load_staged(store, schema, stage, replace=replace, source=str(directory),
                       progress=progress)


def catalog_table(store: Store, name: str) -> CatalogTable:
    """The table ``name`` of the store's catalog, checked now, read when staged: plain
    identifiers joined by dots, qualified by its schema (or database, and catalog), not
    one of afr's own tables, and there; else a LoadError."""
    parts = name.split(".")
    try:
        well_formed = 2 <= len(parts) <= 3 and bool(check_table_name(name))
    except StoreError:  # a part that is no plain identifier
        well_formed = False
    if not well_formed:
        raise LoadError(f"{name!r}: name the table with its schema or database "
                        "(lake.skb_nodes), in plain names joined by dots")
    if store.own_schema is not None and parts[-2].lower() == store.own_schema \
            and parts[-1].lower() in own_table_names():
        raise LoadError(f"{name}: that is a table of afr's own; name the table that "
                        "holds the SKB's nodes or edges")
    if not store.catalog_table_exists(name):
        raise LoadError(f"{name}: no such table in {store.location}")
    return CatalogTable(name, partial(store.view_catalog_table, name))


def load_staged(
    store: Store,
    schema: SkbSchema,
    stage: Callable[[duckdb.DuckDBPyConnection, Phases], StageResult],
    *,
    replace: bool,
    source: str,
    progress: bool,
) -> LoadReport:
    """Stage the input with ``stage`` and copy it into ``store`` with its catalogue, indexes
    and metadata, in one transaction; a store that holds an SKB already is only replaced
    when ``replace``."""
    started = time.perf_counter()
    store.init()
    existing = store.skb_name()
    if existing and not replace:
        raise LoadError(
            f"the store {store.location} already holds the SKB {existing!r}; "
            "pass --replace to replace it (or use another --db / --schema)"
        )
    phases = Phases(["reading and checking nodes", "reading and checking edges",
                     "writing to the store", "building indexes"], enabled=progress)
    with phases:
        staging = store.staging_connection()
        try:
            with store.transaction():
                result = stage(staging, phases)
                phases.next("writing to the store")
                store.ingest_staged(staging, replace=bool(existing))
                _write_types(store, schema, staging)
                _write_attributes(store, staging)
                phases.next("building indexes")
                store.run("load/indexes.sql")
                build_name_index(store)
                _write_meta(store, schema, staging, source=source, int_ids=result.int_ids)
        finally:  # also after a refused load: staging holds a copy of the input
            store.release_staging(staging)
    return LoadReport(
        skb=schema.name,
        store=store.location,
        nodes=result.nodes,
        edges=result.edges,
        aliases=result.aliases,
        seconds=time.perf_counter() - started,
        replaced=bool(existing),
        warnings=result.warnings,
    )


def _write_types(store: Store, schema: SkbSchema, staging: duckdb.DuckDBPyConnection) -> None:
    """The node and edge types, with how many of each the store now holds: one write per
    catalogue (on Spark each INSERT is a job of its own)."""
    counts = {(kind, t): int(n) for kind, t, n in staged_type_counts(staging)}
    nodes = list(schema.node_types.values())
    store.write_rows("node_types", {
        "type": _texts(t.type for t in nodes),
        "label": _texts(t.label for t in nodes),
        "description": _texts(t.description for t in nodes),
        "is_candidate": np.asarray([bool(t.is_candidate) for t in nodes], dtype=bool),
        "node_count": np.asarray([counts.get(("node", t.type), 0) for t in nodes],
                                 dtype=np.int64),
    })
    edges = list(schema.edge_types.values())
    store.write_rows("edge_types", {
        "type": _texts(e.type for e in edges),
        "label": _texts(e.label for e in edges),
        "description": _texts(e.description for e in edges),
        "source_type": _texts(e.source_type for e in edges),
        "target_type": _texts(e.target_type for e in edges),
        "edge_count": np.asarray([counts.get(("edge", e.type), 0) for e in edges],
                                 dtype=np.int64),
        "directed": np.asarray([schema.edge_directed(e.type) for e in edges], dtype=bool),
    })


def _texts(values: Iterable[str | None]) -> np.ndarray:
    return np.asarray(list(values), dtype=object)


def _write_attributes(store: Store, staging: duckdb.DuckDBPyConnection) -> None:
    """The attribute catalogue: each node type's attribute paths, their value types and
    how many nodes have them."""
    # Computed in the staging database (DuckDB for every store) and copied over in one
    # write: a few hundred rows at most, but on Spark each INSERT is a statement of its own.
    rows = stage_attribute_catalog(staging)
    store.write_rows("node_attributes", {
        "type": np.asarray([r[0] for r in rows], dtype=object),
        "path": np.asarray([r[1] for r in rows], dtype=object),
        "value_type": np.asarray([r[2] for r in rows], dtype=object),
        "node_count": np.asarray([r[3] for r in rows], dtype=np.int64),
    })


def _write_meta(store: Store, schema: SkbSchema, staging: duckdb.DuckDBPyConnection, *,
                source: str, int_ids: bool) -> None:
    """What the store says about the SKB it holds (``afr_meta``)."""
    meta = {
        "skb_name": schema.name,
        "skb_description": schema.description,
        "skb_directed": "true" if schema.directed else "false",
        "skb_source": source,
        "skb_int_ids": "true" if int_ids else "false",
        "skb_loaded_at": dt.datetime.now(dt.UTC).isoformat(timespec="seconds"),
        # which node types each edge type connects (afr.ground.compile)
        "skb_edge_pairs": json.dumps(staged_edge_pairs(staging)),
    }
    store.set_meta_many(meta)
