"""Stores: where an SKB lives. ``open_store`` picks DuckDB, PostgreSQL or Spark from the
target.

The rules for naming a store live here, once: ``store_kind`` and ``is_store_url`` (which
targets are URLs: ``postgresql://…`` and ``spark://MASTER/DATABASE``) and ``resolve_db`` (the given target, else ``./afr.duckdb``; the setting
``store.db``, ``$AFR_DB``, is resolved where a command starts). The commands' demo
fallback is ``afr.demo.open_store_for``.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import TYPE_CHECKING, Any

from afr.errors import StoreError
from afr.settings import StoreSettings
from afr.store.base import Store
from afr.store.dialect import split_sql
from afr.store.duckdb_store import DuckDBStore, check_store_file
from afr.store.render import bind_user_params, inline_params, placeholders, pretty
from afr.store.summary import describe_store, size_text

if TYPE_CHECKING:
    from afr.store.postgres_store import PostgresStore
    from afr.store.spark_store import SparkStore

__all__ = ["DEFAULT_DB", "DuckDBStore", "PostgresStore", "SparkStore", "Store",
           "bind_user_params", "check_store_file", "describe_store", "inline_params",
           "is_postgres_url", "is_store_url", "open_store", "placeholders", "pretty",
           "resolve_db", "size_text", "split_sql", "store_ddl_for", "store_kind"]

DEFAULT_DB = "afr.duckdb"  # in the working directory

_URL = re.compile(r"^[A-Za-z][\w+.-]*://")
_POSTGRES_URL = re.compile(r"^postgres(ql)?(\+\w+)?://")
_SPARK_URL = re.compile(r"^(spark|sc)://")
# "sqlite:x.db", "md:kb": DuckDB reads a "name:" prefix as an extension to download and
# load. One letter before the colon is a Windows drive (C:\kb.duckdb), a path.
_PREFIXED = re.compile(r"^([A-Za-z][\w+.-]+):")
ACCEPTED_FORMS = ("give a DuckDB file path (e.g. ./afr.duckdb), a postgresql:// URL, a "
                  "spark://MASTER/DATABASE or an sc://HOST:PORT/DATABASE URL")


def __getattr__(name: str) -> Any:
    # psycopg takes a fifth of a second to import: only PostgreSQL users pay for it.
    if name == "PostgresStore":
        from afr.store.postgres_store import PostgresStore

        return PostgresStore
    if name == "SparkStore":  # pyspark loads only when a Spark store is opened
        from afr.store.spark_store import SparkStore

        return SparkStore
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def store_kind(target: str | Path) -> str:
    """The one URL rule: ``postgresql://…`` (or ``postgres://``, ``postgresql+driver://``)
    names a PostgreSQL store, ``spark://MASTER/DATABASE`` a Spark store (``sc://HOST:PORT/
    DATABASE``: through a Spark Connect server), anything without
    a scheme a DuckDB file. Any other ``scheme://`` is an error rather than a file of that
    name. Returns "postgres", "spark" or "duckdb"."""
    text = str(target)
    if _POSTGRES_URL.match(text):
        return "postgres"
    if _SPARK_URL.match(text):
        return "spark"
    if _URL.match(text):
        scheme = text.split("://", 1)[0]
        raise StoreError(f"unsupported store URL scheme {scheme}://: {ACCEPTED_FORMS}")
    prefixed = _PREFIXED.match(text)
    if prefixed:
        raise StoreError(f"unsupported store {text!r} (a {prefixed.group(1)}: prefix): "
                         f"{ACCEPTED_FORMS}")
    return "duckdb"


def is_postgres_url(target: str | Path) -> bool:
    """Whether ``target`` names a PostgreSQL store (``store_kind``)."""
    return store_kind(target) == "postgres"


def is_store_url(target: str | Path) -> bool:
    """Whether ``target`` names a store by URL (PostgreSQL, Spark), not a DuckDB file."""
    return store_kind(target) != "duckdb"


def resolve_db(db: str | Path | None = None) -> str:
    """The store to use: the given ``db``, else ``./afr.duckdb``."""
    return str(db) if db else DEFAULT_DB


def open_store(db: str | Path | None = None, *, schema: str | None = None,
               read_only: bool = False, create: bool = True,
               settings: StoreSettings | None = None) -> Store:
    """Open a store: a PostgreSQL URL (``postgresql://…``), a Spark URL
    (``spark://MASTER/DATABASE``, its tables under ``settings.spark_warehouse``) or a
    DuckDB file path (``db``, else ``settings.db``, else ``./afr.duckdb``).

    ``create=False`` opens only a store that is there: no new DuckDB file, and on
    PostgreSQL no ``CREATE SCHEMA`` or ``CREATE EXTENSION`` (a missing one is an error).
    ``settings``: the [store] settings (schema, memory), defaults when not given."""
    settings = settings or StoreSettings()
    target = resolve_db(db or settings.db)
    kind = store_kind(target)
    if kind == "spark":
        from afr.store.spark_store import SparkStore

        return SparkStore(target, warehouse=settings.spark_warehouse, read_only=read_only,
                          create=create, batch=settings.spark_batch,
                          gather_ms=settings.spark_gather_ms)
    if kind == "postgres":
        from afr.store.postgres_store import PostgresStore

        return PostgresStore(target, schema=schema or settings.schema, read_only=read_only,
                             create=create, index_memory_mb=settings.pg_index_memory_mb,
                             replica_url=settings.replica_url)
    return DuckDBStore(Path(target).expanduser(), read_only=read_only, create=create,
                       memory_mb=settings.duckdb_memory_mb)


def store_ddl_for(db: str | Path | None = None, *, schema: str | None = None,
                  dim: int | None = None) -> str:
    """The DDL of the store ``db`` names (``afr init --print-sql``), without opening it."""
    from afr.store.ddl import store_ddl
    from afr.store.dialect import DUCKDB, POSTGRES, SPARK

    dialect = {"postgres": POSTGRES, "spark": SPARK}.get(store_kind(resolve_db(db)), DUCKDB)
    return store_ddl(dialect, schema=schema or StoreSettings().schema, dim=dim)
