"""Staging: read and check an SKB in DuckDB temp tables before anything reaches the store.

DuckDB reads JSON lines and CSV (plain or gzip) fast and in parallel, so all parsing,
id mapping and validation happen here, in SQL, for both stores. The store only ever
receives a clean, complete SKB — or nothing.
"""

from __future__ import annotations

import gzip
import json
import re
from dataclasses import dataclass, field
from pathlib import Path

import duckdb

from afr.errors import LoadError
from afr.load.tables import (
    DESCRIPTIONS,
    TABLE_FORMATS,
    CatalogTable,
    TableFormat,
    TableSource,
    open_table,
    table_format,
    table_place,
)
from afr.store.base import duckdb_sql, used_params
from afr.store.skb import SkbSchema


@dataclass
class StageResult:
    nodes: int = 0
    edges: int = 0
    aliases: int = 0
    int_ids: bool = False
    warnings: list[str] = field(default_factory=list)


def find_file(directory: Path, stem: str, required: bool = True) -> Path | None:
    """``stem`` or ``stem.gz`` inside the SKB directory."""
    for candidate in (directory / stem, directory / f"{stem}.gz"):
        if candidate.is_file():
            return candidate
    if required:
        raise LoadError(f"{directory}: missing {stem} (or {stem}.gz)")
    return None


def find_table(directory: Path, text_file: str, fmt: TableFormat | None) -> Path:
    """One table of an SKB directory: ``text_file`` (``nodes.jsonl``, ``edges.csv``; or
    gzipped), or a table of the same stem (``nodes.parquet``: a file or a folder of part
    files; ``nodes/``: a Delta or Iceberg table). ``fmt`` insists on that table format;
    None takes the text file where there is one, else the table that is there."""
    stem = text_file.split(".")[0]
    text = None if fmt else find_file(directory, text_file, required=False)
    if text is not None:
        return text
    for kind in (fmt,) if fmt else TABLE_FORMATS:
        table = table_place(directory, stem, kind)
        if table_format(table) == kind:
            return table
    wanted = [DESCRIPTIONS[fmt].format(stem=stem)] if fmt else [
        f"{text_file} (or {text_file}.gz)", f"{stem}.parquet",
        f"a Delta or Iceberg table {stem}/"]
    raise LoadError(f"{directory}: missing {', or '.join(wanted)}")


def is_table(path: TableSource) -> bool:
    """A table (rows: Parquet, Delta, Iceberg, or one the store's catalog names), not a
    text file (lines)."""
    return isinstance(path, CatalogTable) or table_format(path) is not None


def _table_columns(con: duckdb.DuckDBPyConnection, path: TableSource, view: str,
                   required: tuple[str, ...]) -> dict[str, str]:
    """The table's columns and their types, as ``view`` (made here); a missing
    ``required`` one stops."""
    open_table(con, path, view)
    try:
        rows = _run(con, "load/table_columns.sql", view=view)
    except duckdb.Error as exc:
        raise _duck_error(path, exc) from None
    columns = {str(r[0]): str(r[1]) for r in rows}
    missing = [c for c in required if c not in columns]
    if missing:
        raise LoadError(f"{path.name}: no column {', '.join(map(repr, missing))} (its "
                        f"columns: {', '.join(columns) or 'none'})")
    return columns


#: The views the staging SQL reads a table through (afr/load/tables.py).
NODES_VIEW, EDGES_VIEW = "src_nodes", "src_edges"


def _run(con: duckdb.DuckDBPyConnection, template: str, params: dict | None = None, **ctx) -> list:
    rows: list = []
    for stmt in duckdb_sql(template, **ctx):
        used = used_params(stmt, params)
        cur = con.execute(stmt, used)
        rows = cur.fetchall() if cur.description else []
    return rows


def _report(file: TableSource, problems: list[tuple], what: str) -> None:
    if not problems:
        return
    parts = []
    total = sum(int(p[1]) for p in problems)
    for problem, n, lines, details in problems[:3]:
        examples = ", ".join(
            f"{what} {line}" + (f" ({detail})" if detail else "")
            for line, detail in zip(lines[:3], details[:3], strict=False)
        )
        parts.append(f"{n} × {problem}, e.g. {examples}")
    more = f"; and {len(problems) - 3} more kinds" if len(problems) > 3 else ""
    raise LoadError(f"{file.name}: {total} problem(s): " + "; ".join(parts) + more)


MALFORMED = "malformed JSON"


def _with_json_messages(path: Path, problems: list[tuple]) -> list[tuple]:
    """``problems`` with the JSON parser's own message (and the file's line number) as the
    detail of each malformed record: DuckDB only says that a record did not parse."""
    wanted = {int(r) for problem, _, records, _ in problems if problem == MALFORMED
              for r in records}
    if not wanted:
        return problems
    found: dict[int, str] = {}
    opener = gzip.open if path.suffix == ".gz" else open
    try:
        with opener(path, "rt", encoding="utf-8", errors="replace") as fh:
            record = 0
            for line_no, line in enumerate(fh, 1):
                if not line.strip():
                    continue  # blank lines are not records
                record += 1
                if record in wanted:
                    try:
                        json.loads(line)
                    except ValueError as exc:
                        message = getattr(exc, "msg", str(exc))
                        column = getattr(exc, "colno", None)
                        found[record] = (f"line {line_no}: {message}"
                                         + (f" at column {column}" if column else ""))
                    if len(found) == len(wanted):
                        break
                if record >= max(wanted):
                    break
    except (OSError, EOFError):
        return problems  # the counts alone still say what is wrong
    return [(problem, n, records,
             [found.get(int(r), d) for r, d in zip(records, details, strict=False)]
             if problem == MALFORMED else details)
            for problem, n, records, details in problems]


def _duck_error(file: TableSource, exc: duckdb.Error) -> LoadError:
    lines = [ln.strip() for ln in str(exc).splitlines() if ln.strip()]
    head = lines[0] if lines else type(exc).__name__
    head = head.replace("Invalid Input Error: ", "")
    extra = "; ".join(ln for ln in lines[1:] if ln.startswith(("Original Line", "Expected")))
    return LoadError(f"{file.name}: {head}" + (f" — {extra}" if extra else ""))


#: The longest record of nodes.jsonl, in bytes (DuckDB's default object size, written out
#: so that errors can name it). DuckDB's reader stops only at some multiple of it (its
#: buffer); the checks refuse a record between the two, so the limit is this one.
MAX_RECORD_BYTES = 16 << 20


def _oversized_record(path: Path, limit: int) -> LoadError | None:
    """The first record of ``path`` longer than ``limit`` bytes, named: its line, size
    and id (DuckDB names only the limit)."""
    opener = gzip.open if path.suffix == ".gz" else open
    try:
        with opener(path, "rb") as fh:
            for line_no, line in enumerate(fh, 1):
                if len(line) > limit:
                    found = re.search(rb'"id"\s*:\s*("(?:[^"\\]|\\.){0,80}"|-?\d+)', line[:4096])
                    which = f" (id {found.group(1).decode(errors='replace')})" if found else ""
                    return LoadError(
                        f"{path.name}: line {line_no}{which} holds {len(line) / (1 << 20):.1f} "
                        f"MB, more than the {limit >> 20} MB one record may hold: shorten "
                        "its text (search reads only its start) or split the node")
    except (OSError, EOFError):
        return None
    return None


def stage_nodes(con: duckdb.DuckDBPyConnection, path: TableSource, schema: SkbSchema) -> StageResult:
    """Read ``path`` (nodes.jsonl, or a nodes table) into ``stg_nodes``, checked."""
    result = StageResult()
    try:
        _read_nodes(con, path)
        problems = _run(con, "load/check_nodes.sql", {"node_types": list(schema.node_types),
                                                       "max_bytes": MAX_RECORD_BYTES})
        if is_table(path):
            _report(path, problems, "row")
        else:
            _report(path, _with_json_messages(path, problems), "record")
        result.int_ids = bool(_run(con, "load/int_ids.sql")[0][0])
        _run(con, "load/typed_nodes.sql", int_ids=result.int_ids)
        result.nodes, result.aliases = _run(con, "load/count_nodes.sql")[0]
    except duckdb.Error as exc:
        raise _duck_error(path, exc) from None
    if result.nodes == 0:
        raise LoadError(f"{path.name}: no nodes")
    return result


def _read_nodes(con: duckdb.DuckDBPyConnection, path: TableSource) -> None:
    """``stg_raw_nodes``: one JSON record per node, from JSON lines or Parquet rows."""
    if is_table(path):
        columns = _table_columns(con, path, NODES_VIEW, ("id", "type"))
        attrs = columns.get("attrs")
        _run(con, "load/read_nodes_table.sql", view=NODES_VIEW,
             attrs=None if attrs is None else "text" if attrs == "VARCHAR" else "nested")
        return
    try:
        _run(con, "load/read_nodes.sql", {"path": str(path), "max_bytes": MAX_RECORD_BYTES})
    except duckdb.Error as exc:
        if "maximum_object_size" in str(exc):
            raise _oversized_record(path, MAX_RECORD_BYTES) or _duck_error(path, exc) \
                from None
        raise


def check_edges_header(path: Path) -> None:
    opener = gzip.open if path.suffix == ".gz" else open
    try:
        with opener(path, "rt", encoding="utf-8", newline="") as fh:
            header = fh.readline().strip().lstrip("\ufeff")
    except (OSError, UnicodeDecodeError, EOFError) as exc:
        raise LoadError(f"{path.name}: cannot read ({exc})") from None
    if [h.strip() for h in header.split(",")] != ["src", "type", "dst"]:
        raise LoadError(f"{path.name}: the header must be 'src,type,dst', found {header[:60]!r}")


def stage_edges(
    con: duckdb.DuckDBPyConnection, path: TableSource, schema: SkbSchema, result: StageResult,
    nodes_file: str = "nodes.jsonl",
) -> None:
    """Read ``path`` (edges.csv, or an edges table) into ``stg_edges``, checked against the
    nodes staged from ``nodes_file`` (named in the errors)."""
    if is_table(path):
        _table_columns(con, path, EDGES_VIEW, ("src", "type", "dst"))
    else:
        check_edges_header(path)
    # Edges may name their type by key or by prompt label (docs/skb-format.md).
    names, types = [], []
    for t in schema.edge_types.values():
        names.append(t.type)
        types.append(t.type)
        if t.label != t.type:
            names.append(t.label)
            types.append(t.type)
    try:
        if is_table(path):
            _run(con, "load/read_edges_table.sql", view=EDGES_VIEW)
        else:
            _run(con, "load/read_edges.sql", {"path": str(path)})
        _run(con, "load/stage_edges.sql", {"names": names, "types": types})
        if _run(con, "load/check_edges_fast.sql")[0][0]:
            _report(path, _run(con, "load/check_edges.sql", {"nodes_file": nodes_file}),
                    "row" if is_table(path) else "line")
        result.edges = _run(con, "load/count_edges.sql")[0][0]
        decl = list(schema.edge_types.values())
        params = {
            "types": [t.type for t in decl],
            "sources": [t.source_type for t in decl],
            "targets": [t.target_type for t in decl],
        }
        for etype, n in _run(con, "load/edge_type_mismatch.sql", params):
            result.warnings.append(
                f"{n} '{etype}' edges connect node types other than skb.json declares"
            )
    except duckdb.Error as exc:
        raise _duck_error(path, exc) from None


def stage_attribute_catalog(con: duckdb.DuckDBPyConnection) -> list[tuple]:
    """(type, path, value_type, node_count) for every attribute path in stg_nodes."""
    return _run(con, "load/attribute_catalog.sql")


def staged_edge_pairs(con: duckdb.DuckDBPyConnection) -> list[tuple[str, str, str]]:
    """(edge type, source node type, target node type) for every pair the staged edges
    connect."""
    return [(str(e), str(s), str(d)) for e, s, d in _run(con, "load/staged_edge_pairs.sql")]


def staged_type_counts(con: duckdb.DuckDBPyConnection) -> list[tuple]:
    """('node' | 'edge', type, count) for the staged SKB."""
    return _run(con, "load/staged_type_counts.sql")
