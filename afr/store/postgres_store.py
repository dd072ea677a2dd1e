"""PostgreSQL + pgvector, inside a user's existing database, in its own schema."""

from __future__ import annotations

import os
import re
import tempfile
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import duckdb
import numpy as np
import psycopg
from psycopg import sql as pgsql

from afr.errors import StoreError
from afr.store.base import SKB_TABLES, Store, check_identifier, redact_url
from afr.store.dialect import POSTGRES

_COPY_CHUNK = 1 << 20


class PostgresStore(Store):
    dialect = POSTGRES

    def __init__(self, url: str, *, schema: str = "afr", read_only: bool = False) -> None:
        self.url = url
        self.schema = check_identifier(schema, "schema name")
        self.location = f"{redact_url(url)} (schema {schema})"
        self.read_only = read_only
        try:
            self.con = psycopg.connect(url, autocommit=True, connect_timeout=10)
        except psycopg.Error as exc:
            raise StoreError(f"cannot connect to PostgreSQL at {redact_url(url)}: "
                             f"{_first_line(exc)}") from None
        self._in_tx = False
        # One connection, many threads (the reranker): statements take turns.
        self.lock = threading.RLock()
        self._setup()

    def _setup(self) -> None:
        rows = self._fetch_raw("pg/vector_extension.pg.sql")
        if not rows:
            try:
                self._exec_raw("pg/create_extension.pg.sql")
            except psycopg.Error:
                raise StoreError(
                    "the PostgreSQL extension 'vector' (pgvector) is not installed in this "
                    "database; ask an administrator to run: CREATE EXTENSION vector;"
                ) from None
        if not self.read_only:
            exists = self._fetch_raw("pg/schema_exists.pg.sql", {"schema": self.schema})
            if not exists:
                try:
                    self._exec_raw("pg/create_schema.pg.sql", schema=self.schema)
                except psycopg.Error as exc:
                    raise StoreError(f"cannot create schema {self.schema!r}: "
                                     f"{_first_line(exc)}") from None
        # Our schema first, then whatever the user had (where the vector type lives).
        previous = self._fetch_raw("pg/search_path.pg.sql")[0][0]
        self.con.execute(
            pgsql.SQL("SELECT set_config('search_path', {}, false)").format(
                pgsql.Literal(f'"{self.schema}", {previous}')
            )
        )
        if self.read_only:
            self._exec_raw("pg/read_only.pg.sql")
        from pgvector.psycopg import register_vector

        register_vector(self.con)

    def _exec_raw(self, name: str, params: dict | None = None, **ctx: Any) -> None:
        for stmt in self.sql(name, **ctx):
            self.con.execute(stmt, params)

    def _fetch_raw(self, name: str, params: dict | None = None) -> list[tuple]:
        return self.con.execute(self.sql(name)[0], params).fetchall()

    # -- statements --------------------------------------------------------------------

    def execute(self, sql: str, params: dict[str, Any] | None = None) -> None:
        with self.lock:
            self._execute(sql, params)

    def _execute(self, sql: str, params: dict[str, Any] | None) -> None:
        try:
            self.con.execute(sql, params)
        except psycopg.Error as exc:
            raise _store_error(exc) from None

    def query(self, sql: str, params: dict[str, Any] | None = None) -> list[tuple]:
        with self.lock:
            return self._query(sql, params)

    def _query(self, sql: str, params: dict[str, Any] | None) -> list[tuple]:
        try:
            cur = self.con.execute(sql, params)
            return cur.fetchall() if cur.description else []
        except psycopg.Error as exc:
            raise _store_error(exc) from None

    def query_with_columns(
        self, sql: str, params: dict[str, Any] | None = None
    ) -> tuple[list[str], list[tuple]]:
        with self.lock:
            return self._query_with_columns(sql, params)

    def _query_with_columns(
        self, sql: str, params: dict[str, Any] | None
    ) -> tuple[list[str], list[tuple]]:
        try:
            cur = self.con.execute(sql, params)
            if not cur.description:
                return [], []
            return [d.name for d in cur.description], cur.fetchall()
        except psycopg.Error as exc:
            raise _store_error(exc) from None

    @contextmanager
    def transaction(self) -> Iterator[None]:
        with self.lock:  # other threads wait until the transaction is over
            if self._in_tx:
                yield
                return
            self._in_tx = True
            try:
                with self.con.transaction():
                    yield
            except psycopg.Error as exc:
                raise _store_error(exc) from None
            finally:
                self._in_tx = False

    def close(self) -> None:
        self.con.close()

    # -- bulk ------------------------------------------------------------------------------

    def staging_connection(self) -> duckdb.DuckDBPyConnection:
        con = duckdb.connect()
        con.execute("SET preserve_insertion_order = true")
        return con

    def release_staging(self, staging: Any) -> None:
        staging.close()

    def ingest_staged(self, staging: Any, replace: bool) -> None:
        # DuckDB writes the staged tables as CSV (fast, parallel) and we stream the files
        # into COPY … FROM STDIN: no per-row Python work, bounded memory.
        self._exec_raw("pg/load_settings.pg.sql")
        if replace:
            for stmt in self.sql("load/clear.sql", tables=SKB_TABLES):
                self.execute(stmt)
        self._exec_raw("pg/drop_load_indexes.pg.sql")
        with tempfile.TemporaryDirectory(prefix="afr-load-") as tmp:
            for table in ("nodes", "node_aliases", "edges"):
                path = Path(tmp) / f"{table}.csv"
                for stmt in self.sql("load/export.duckdb.sql", table=table, path=str(path)):
                    staging.execute(stmt)
                self._copy_file(table, path)

    def _copy_file(self, table: str, path: Path) -> None:
        statement = self.sql("pg/copy_in.pg.sql", table=table)[0]
        try:
            with self.con.cursor().copy(statement) as copy, open(path, "rb") as fh:
                while chunk := fh.read(_COPY_CHUNK):
                    copy.write(chunk)
        except psycopg.Error as exc:
            raise _store_error(exc) from None

    def write_vectors(self, variant: str, ids: np.ndarray, vectors: np.ndarray) -> None:
        check_identifier(variant, "embedding variant")
        statement = self.sql("pg/copy_vectors.pg.sql", variant=variant)[0]
        try:
            with self.con.cursor().copy(statement) as copy:
                copy.set_types(["int8", "vector"])
                for node_id, vec in zip(ids.tolist(), vectors.astype(np.float32), strict=True):
                    copy.write_row((node_id, vec))
        except psycopg.Error as exc:
            raise _store_error(exc) from None

    def build_vector_index(self, variant: str) -> None:
        check_identifier(variant, "embedding variant")
        for stmt in self.sql("embed/hnsw.pg.sql", variant=variant):
            self.execute(stmt)


def _first_line(exc: BaseException) -> str:
    text = str(exc).strip()
    return text.splitlines()[0] if text else type(exc).__name__


def _store_error(exc: psycopg.Error) -> StoreError:
    if isinstance(exc, psycopg.errors.DiskFull):
        return StoreError("PostgreSQL: the disk is full")
    if isinstance(exc, psycopg.errors.InsufficientPrivilege):
        return StoreError(f"PostgreSQL: permission denied ({_first_line(exc)})")
    if isinstance(exc, psycopg.OperationalError):
        return StoreError(f"PostgreSQL connection problem: {_first_line(exc)}")
    return StoreError(f"PostgreSQL: {_first_line(exc)}")


def is_postgres_url(url: str) -> bool:
    return bool(re.match(r"^postgres(ql)?(\+\w+)?://", url))


def default_schema() -> str:
    return os.environ.get("AFR_SCHEMA", "afr")
