"""Stores: where an SKB lives. ``open_store`` picks DuckDB or PostgreSQL from the URL."""

from __future__ import annotations

import os
from pathlib import Path

from afr.store.base import Store
from afr.store.duckdb_store import DuckDBStore, default_store_path
from afr.store.postgres_store import PostgresStore, default_schema, is_postgres_url

__all__ = ["DuckDBStore", "PostgresStore", "Store", "open_store", "resolve_db"]


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
        return PostgresStore(target, schema=schema or default_schema(), read_only=read_only)
    return DuckDBStore(target, read_only=read_only)
