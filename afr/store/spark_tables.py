"""The tables of a Spark store: Parquet folders under the warehouse, and the catalogue that
says which folders make up each table, written atomically (``afr_catalog.json``).

Spark's own session catalog forgets its tables when the session ends, and Parquet tables
take no DELETE or UPDATE and have no transactions. So a table here is a list of *parts*
(folders of Parquet files, each written once and never changed): an INSERT adds a part, a
DELETE or UPDATE writes the table's remaining rows as one new part that replaces the
others (copy on write). A transaction keeps a copy of the catalogue: its commit writes the
new catalogue in one rename and removes the parts nothing names any more; its rollback
puts the copy back and removes the parts it wrote. A process that dies halfway leaves the
catalogue as it was (the parts it wrote are never named). One writer at a time, as with a
DuckDB file.
"""

from __future__ import annotations

import copy
import json
import os
import shutil
import uuid
from dataclasses import dataclass, field
from pathlib import Path

from afr.errors import StoreError

CATALOG_FILE = "afr_catalog.json"
CATALOG_FORMAT = 1
# More parts than this and the next write of the table folds them into one: every query
# lists the files of every part.
MAX_PARTS = 24


@dataclass
class TableDef:
    """One table: its columns (name, Spark type), the SQL defaults of some of them, and
    the folders (relative to the database folder) holding its rows."""

    columns: list[tuple[str, str]]
    defaults: dict[str, str] = field(default_factory=dict)
    parts: list[str] = field(default_factory=list)

    def ddl(self) -> str:
        """The columns as a Spark schema string (how the Parquet files are read)."""
        return ", ".join(f"`{name}` {kind}" for name, kind in self.columns)

    def column_type(self, name: str) -> str:
        return dict(self.columns)[name]


class TableCatalog:
    """The catalogue of one database folder, and the transaction around its changes."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self.tables: dict[str, TableDef] = {}
        self._saved: dict[str, TableDef] | None = None  # the catalogue at BEGIN
        self._written: list[str] = []  # parts written since BEGIN
        self.load()

    @property
    def path(self) -> Path:
        return self.root / CATALOG_FILE

    def exists(self) -> bool:
        return self.path.is_file()

    def load(self) -> None:
        if not self.exists():
            self.tables = {}
            return
        try:
            data = json.loads(self.path.read_text(encoding="utf-8"))
        except (OSError, ValueError) as exc:
            raise StoreError(f"cannot read the Spark store's catalogue {self.path}: "
                             f"{exc}") from None
        if int(data.get("format", 0)) > CATALOG_FORMAT:
            raise StoreError(f"the Spark store {self.root} was written by a newer afr "
                             f"(catalogue format {data['format']}); upgrade afr")
        self.tables = {name: TableDef([tuple(c) for c in t["columns"]], t.get("defaults", {}),
                                      t.get("parts", []))
                       for name, t in data["tables"].items()}

    def save(self) -> None:
        data = {"format": CATALOG_FORMAT, "tables": {
            name: {"columns": [list(c) for c in t.columns], "defaults": t.defaults,
                   "parts": t.parts} for name, t in sorted(self.tables.items())}}
        self.root.mkdir(parents=True, exist_ok=True)
        tmp = self.path.with_name(f".{CATALOG_FILE}.{uuid.uuid4().hex}")
        tmp.write_text(json.dumps(data, indent=1), encoding="utf-8")
        os.replace(tmp, self.path)  # atomic: readers see the old or the new catalogue

    def table(self, name: str) -> TableDef:
        try:
            return self.tables[name]
        except KeyError:
            raise StoreError(f"Spark: no table {name!r} in {self.root}") from None

    def new_part(self, table: str) -> tuple[str, Path]:
        """A fresh folder name for rows of ``table`` (relative, absolute); not yet named by
        the table."""
        relative = f"{table}/{uuid.uuid4().hex}"
        self._written.append(relative)
        return relative, self.root / relative

    # -- transactions ----------------------------------------------------------------

    @property
    def in_transaction(self) -> bool:
        return self._saved is not None

    def begin(self) -> None:
        self._saved = copy.deepcopy(self.tables)
        self._written = []

    def commit(self) -> None:
        before = _parts(self._saved or {})
        self.save()
        unused = (before | set(self._written)) - _parts(self.tables)
        self._saved, self._written = None, []
        for part in unused:
            shutil.rmtree(self.root / part, ignore_errors=True)

    def rollback(self) -> None:
        written, saved = self._written, self._saved
        self._saved, self._written = None, []
        if saved is not None:
            self.tables = saved
        for part in set(written) - _parts(self.tables):
            shutil.rmtree(self.root / part, ignore_errors=True)


def _parts(tables: dict[str, TableDef]) -> set[str]:
    return {part for t in tables.values() for part in t.parts}
