"""Stores: where an SKB lives. ``open_store`` picks DuckDB or PostgreSQL from the URL."""

from __future__ import annotations

import os
import re
from pathlib import Path
from typing import TYPE_CHECKING, Any

from afr.store.base import Store
from afr.store.duckdb_store import DuckDBStore, default_store_path

if TYPE_CHECKING:
    from afr.store.postgres_store import PostgresStore

__all__ = ["DuckDBStore", "PostgresStore", "Store", "open_store", "resolve_db"]


def __getattr__(name: str) -> Any:
    # psycopg takes a fifth of a second to import: only PostgreSQL users pay for it.
    if name == "PostgresStore":
        from afr.store.postgres_store import PostgresStore

        return PostgresStore
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def is_postgres_url(url: str) -> bool:
    return bool(re.match(r"^postgres(ql)?(\+\w+)?://", url))


def default_schema() -> str:
    return os.environ.get("AFR_SCHEMA", "afr")


def resolve_db(db: str | None) -> str:
    """The store to use: the given --db, else $AFR_DB, else ./afr.duckdb."""
    if db:
        return db
    env = os.environ.get("AFR_DB")
    if env:
        return env
    return str(default_store_path())


def open_store(db: str | Path | None = None, *, schema: str | None = None,
               read_only: bool = False) -> Store:
    """Open a store: a PostgreSQL URL (``postgresql://…``) or a DuckDB file path."""
    target = resolve_db(str(db) if db is not None else None)
    if is_postgres_url(target):
        from afr.store.postgres_store import PostgresStore

        return PostgresStore(target, schema=schema or default_schema(), read_only=read_only)
    return DuckDBStore(target, read_only=read_only)
