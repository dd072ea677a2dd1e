"""A Spark store's writes that DuckDB does on the driver, without a Spark job.

Every statement Spark runs is a job (a few tenths of a second on ``local[2]``, however
few its rows). An eval's writes are many and tiny: per question, the run log's rows and
the eval's, each an INSERT of rows made from parameters or a DELETE of the question's
earlier rows, and every ``MAX_PARTS`` parts a rewrite of the table into one. So where the
rows are known without Spark, DuckDB computes them in process and writes the Parquet part
(``SparkStore._adopt_duckdb``):

- an INSERT whose rows are made of parameters (it reads no table): its SELECT, transpiled
  from Spark's dialect to DuckDB's by sqlglot, with the same parameters bound;
- a DELETE, an UPDATE or a fold of the parts into one, on a table small enough for the
  driver (``DRIVER_TABLE_BYTES``): DuckDB reads the table's parts and writes the rows
  left; a DELETE that matches no row writes nothing at all.

The part joins the catalogue in the statement's transaction, as a part Spark wrote does.
Statements DuckDB cannot take (sqlglot cannot render them, DuckDB refuses them) are left
to Spark, which runs them as before.
"""

from __future__ import annotations

import re
from functools import lru_cache
from pathlib import Path
from typing import Any

import duckdb
from sqlglot import parse_one
from sqlglot.errors import SqlglotError

from afr.store.spark_tables import TableDef

# Tables up to this size are rewritten (a DELETE, an UPDATE, a fold of their parts) by
# DuckDB on the driver, not by a Spark job: DuckDB reads and writes tens of MB of Parquet
# in a fraction of the ~0.5 s a job costs. Larger tables stay Spark's to rewrite.
DRIVER_TABLE_BYTES = 64 << 20
_DUCKDB_PARAM = re.compile(r"\$([A-Za-z_][A-Za-z0-9_]*)")


class NotOnDriver(Exception):
    """DuckDB cannot do this write: Spark does it."""


@lru_cache(maxsize=512)
def duckdb_form(spark_sql: str) -> str:
    """A Spark statement (afr's, with ``:name`` parameters) in DuckDB's dialect
    (``$name``)."""
    try:
        return parse_one(spark_sql, read="spark").sql("duckdb")
    except SqlglotError as exc:
        raise NotOnDriver(str(exc)) from None


def bound(sql: str, params: dict[str, Any] | None) -> dict[str, Any]:
    """The parameters ``sql`` names, as plain Python values (DuckDB refuses others)."""
    names = set(_DUCKDB_PARAM.findall(sql))
    return {name: plain(value) for name, value in (params or {}).items() if name in names}


def connect() -> duckdb.DuckDBPyConnection:
    """An in-memory DuckDB whose clock reads as the Spark session's (UTC)."""
    con = duckdb.connect()
    con.execute("SET TimeZone = 'UTC'")
    return con


def parts_size(root: Path, parts: list[str]) -> int:
    """Bytes on disk of the given parts of a table."""
    size = 0
    for part in parts:
        folder = root / part
        size += sum(f.stat().st_size for f in folder.iterdir()) if folder.is_dir() else 0
    return size


def parts_relation(con: duckdb.DuckDBPyConnection, root: Path, table: TableDef,
                   view: str) -> None:
    """View ``view`` on ``con``: the rows of the table's parts in its columns (a column
    added after a part was written reads NULL there, as Spark reads it)."""
    files = sorted(str(f) for part in table.parts for f in (root / part).glob("*.parquet"))
    columns = [(name, duckdb_type(kind)) for name, kind in table.columns]
    if not files:
        empty = ", ".join(f'CAST(NULL AS {kind}) AS "{name}"' for name, kind in columns)
        con.execute(f"CREATE TEMP VIEW {view} AS SELECT {empty} WHERE FALSE")
        return
    listed = ", ".join("'" + f.replace("'", "''") + "'" for f in files)
    source = f"read_parquet([{listed}], union_by_name = true)"
    present = {row[0] for row in con.execute(f"DESCRIBE SELECT * FROM {source}").fetchall()}
    picked = ", ".join(f'CAST("{name}" AS {kind}) AS "{name}"' if name in present
                       else f'CAST(NULL AS {kind}) AS "{name}"' for name, kind in columns)
    con.execute(f"CREATE TEMP VIEW {view} AS SELECT {picked} FROM {source}")


_DUCKDB_TYPES = {"STRING": "VARCHAR", "INT": "INTEGER", "TIMESTAMP_NTZ": "TIMESTAMP",
                 "ARRAY<FLOAT>": "FLOAT[]", "ARRAY<BIGINT>": "BIGINT[]",
                 "ARRAY<STRING>": "VARCHAR[]", "ARRAY<DOUBLE>": "DOUBLE[]"}


def duckdb_type(kind: str) -> str:
    """DuckDB's name of a Spark column type (the types afr's tables use)."""
    return _DUCKDB_TYPES.get(kind.upper(), kind)


def plain(value: Any) -> Any:
    """A parameter as Python values (numpy arrays and scalars are not Spark's or
    DuckDB's)."""
    if hasattr(value, "tolist"):
        return value.tolist()
    if isinstance(value, list | tuple):
        return [v.item() if hasattr(v, "item") else v for v in value]
    return value
