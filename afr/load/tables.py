"""An SKB's nodes and edges as tables: Parquet files, Delta Lake tables or Iceberg tables,
each made one DuckDB view that the staging SQL reads, whatever wrote it.

Parquet is read by DuckDB itself. A Delta table is read by delta-rs (PyPI ``deltalake``,
``afr[delta]``: no JVM, no jars) as the Arrow dataset of its current version, and an
Iceberg table by PyIceberg (``afr[iceberg]``) from its newest metadata file, with the
table's deletes applied; DuckDB scans either through Arrow.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal

import duckdb

from afr.errors import LoadError

TableFormat = Literal["parquet", "delta", "iceberg"]
TABLE_FORMATS: tuple[TableFormat, ...] = ("parquet", "delta", "iceberg")

#: Where each format's table of an SKB directory is, by the table's stem (``nodes``).
_PLACES: dict[TableFormat, str] = {"parquet": "{stem}.parquet", "delta": "{stem}",
                                   "iceberg": "{stem}"}
#: What a table of each format is, for errors that say what was looked for.
DESCRIPTIONS: dict[TableFormat, str] = {
    "parquet": "{stem}.parquet",
    "delta": "the Delta table {stem}/ (a folder with _delta_log)",
    "iceberg": "the Iceberg table {stem}/ (a folder with metadata/*.metadata.json)",
}


@dataclass(frozen=True)
class CatalogTable:
    """A table the store's own catalog names (``lake.skb_nodes``: a table of the DuckDB
    file, or of the Spark session's catalog, in whatever format that catalog keeps it),
    read where it is by ``view``, which makes it a view of the staging connection
    (``Store.view_catalog_table``). ``name`` is what errors call it, as a file's name."""

    name: str
    view: Callable[[duckdb.DuckDBPyConnection, str], None] = field(compare=False)


#: Where an SKB table comes from: a file or folder of the SKB directory, or a named table.
TableSource = Path | CatalogTable


def table_format(path: TableSource) -> TableFormat | None:
    """The format of the table at ``path``, or None for a text file (or nothing) and for
    a table the store's catalog names (its catalog knows its format)."""
    if isinstance(path, CatalogTable):
        return None
    if path.suffix == ".parquet" and path.exists():
        return "parquet"
    if (path / "_delta_log").is_dir():
        return "delta"
    if (path / "metadata").is_dir():
        return "iceberg"
    return None


def table_place(directory: Path, stem: str, fmt: TableFormat) -> Path:
    """Where a ``fmt`` table called ``stem`` sits in an SKB directory."""
    return directory / _PLACES[fmt].format(stem=stem)


def open_table(con: duckdb.DuckDBPyConnection, path: TableSource, view: str) -> None:
    """Make ``view`` a temporary view of the table at ``path`` on ``con``."""
    if isinstance(path, CatalogTable):
        path.view(con, view)
        return
    fmt = table_format(path)
    if fmt == "parquet":
        source = str(path / "**" / "*.parquet") if path.is_dir() else str(path)
        try:
            con.read_parquet(source).create_view(view, replace=True)
        except duckdb.Error as exc:
            raise LoadError(f"{path.name}: {_first_line(exc)}") from None
    elif fmt == "delta":
        con.register(view, _delta_dataset(path))
    elif fmt == "iceberg":
        con.register(view, _iceberg_table(path))
    else:
        raise LoadError(f"{path}: not a Parquet, Delta or Iceberg table")


def _delta_dataset(path: Path):  # -> pyarrow.dataset.Dataset
    try:
        from deltalake import DeltaTable
    except ImportError:
        raise LoadError(f"{path.name}/: reading a Delta table needs the deltalake package: "
                        "pip install 'afr[delta]'") from None
    try:
        return DeltaTable(str(path)).to_pyarrow_dataset()
    except Exception as exc:  # delta-rs raises its own kinds (DeltaError, TableNotFound…)
        raise LoadError(f"{path.name}/: cannot read the Delta table ({_first_line(exc)})") \
            from None


def _iceberg_table(path: Path):  # -> pyarrow.Table
    try:
        from pyiceberg.table import StaticTable
    except ImportError:
        raise LoadError(f"{path.name}/: reading an Iceberg table needs the pyiceberg package: "
                        "pip install 'afr[iceberg]'") from None
    metadata = iceberg_metadata(path)
    try:
        # Materialised: the staging SQL scans a table more than once, a batch reader once.
        return StaticTable.from_metadata(str(metadata)).scan().to_arrow()
    except Exception as exc:  # PyIceberg's and pyarrow's own kinds
        raise LoadError(f"{path.name}/: cannot read the Iceberg table "
                        f"({_first_line(exc)})") from None


_VERSION = re.compile(r"^v?(\d+)(?:-[^/]*)?\.metadata\.json(?:\.gz)?$")


def iceberg_metadata(path: Path) -> Path:
    """The current metadata file of the Iceberg table at ``path``: the one
    ``metadata/version-hint.text`` names (Hadoop tables), else the highest version
    (``v3.metadata.json``, or ``00003-<uuid>.metadata.json`` as catalogs write them)."""
    folder = path / "metadata"
    hint = folder / "version-hint.text"
    if hint.is_file():
        named = folder / f"v{hint.read_text(encoding='utf-8').strip()}.metadata.json"
        if named.is_file():
            return named
    versions: dict[int, list[Path]] = {}
    for file in folder.iterdir():
        found = _VERSION.match(file.name)
        if found:
            versions.setdefault(int(found.group(1)), []).append(file)
    if not versions:
        raise LoadError(f"{path.name}/: no Iceberg metadata file in metadata/")
    newest = versions[max(versions)]
    if len(newest) > 1:
        raise LoadError(f"{path.name}/: {len(newest)} metadata files of version "
                        f"{max(versions)} ({', '.join(sorted(f.name for f in newest))}): "
                        "which one is current is the catalog's to say")
    return newest[0]


def _first_line(exc: BaseException) -> str:
    text = str(exc).strip().splitlines()
    return (text[0] if text else type(exc).__name__).replace("IO Error: ", "")
