"""The store interface: one SKB in SQL tables, in DuckDB or PostgreSQL.

A store renders SQL templates from ``sql/`` and ``schema/`` (Jinja, DuckDB dialect),
finishes them for its dialect (``afr.store.dialect``) and runs them with bound
parameters. Everything above this layer speaks only through ``run``/``query`` and the
few bulk methods below, so the pipeline never knows which database it is on.
"""

from __future__ import annotations

import re
from abc import ABC, abstractmethod
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from functools import lru_cache
from typing import Any, TypeVar

import jinja2
import numpy as np

from afr.errors import StoreConnectionError, StoreError
from afr.resources import schema_dir, sql_dir
from afr.store.dialect import Dialect, split_sql
from afr.store.skb import EdgeType, NodeType, SkbSchema

T = TypeVar("T")
SCHEMA_VERSION = 2
VECTOR_VARIANTS = ("doc", "doc_rel")
# Tables that hold one SKB's data; --replace empties them.
SKB_TABLES = ("nodes", "node_aliases", "edges", "node_types", "edge_types", "node_attributes")
_IDENT = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")


def check_identifier(name: str, what: str = "identifier") -> str:
    """Identifiers that reach templates are ours, but we check them anyway."""
    if not _IDENT.match(name):
        raise StoreError(f"invalid {what} {name!r}")
    return name


@lru_cache(maxsize=1)
def _jinja() -> jinja2.Environment:
    loader = jinja2.ChoiceLoader(
        [
            jinja2.FileSystemLoader(str(sql_dir())),
            jinja2.PrefixLoader({"schema": jinja2.FileSystemLoader(str(schema_dir()))}),
        ]
    )
    return jinja2.Environment(
        loader=loader,
        undefined=jinja2.StrictUndefined,
        autoescape=False,
        trim_blocks=True,
        lstrip_blocks=True,
        keep_trailing_newline=True,
    )


def render_template(name: str, dialect: Dialect, **ctx: Any) -> list[str]:
    """Render ``sql/<name>`` (or ``schema/<file>``) and finish it for ``dialect``.

    Templates named ``*.pg.sql`` / ``*.duckdb.sql`` are written for that one database
    (statements sqlglot cannot carry, such as COPY or index methods) and run as written.
    """
    text = _jinja().get_template(name).render(dialect=dialect.name, **ctx)
    if name.endswith((".pg.sql", ".duckdb.sql")):
        return split_sql(text)
    return dialect.finish(text)


class Store(ABC):
    """One SKB in a SQL database."""

    dialect: Dialect
    location: str  # for humans: a file path or a redacted URL

    # -- statements --------------------------------------------------------------------

    def sql(self, template: str, **ctx: Any) -> list[str]:
        return render_template(template, self.dialect, **ctx)

    @abstractmethod
    def execute(self, sql: str, params: dict[str, Any] | None = None) -> None: ...

    @abstractmethod
    def query(self, sql: str, params: dict[str, Any] | None = None) -> list[tuple]: ...

    @abstractmethod
    def query_with_columns(
        self, sql: str, params: dict[str, Any] | None = None
    ) -> tuple[list[str], list[tuple]]: ...

    def run(self, template: str, params: dict[str, Any] | None = None, **ctx: Any) -> list[tuple]:
        """Render a template and run its statements; rows of the last one are returned."""
        rows: list[tuple] = []
        statements = self.sql(template, **ctx)
        for i, stmt in enumerate(statements):
            if i == len(statements) - 1:
                rows = self.query(stmt, used_params(stmt, params))
            else:
                self.execute(stmt, used_params(stmt, params))
        return rows

    @abstractmethod
    @contextmanager
    def transaction(self) -> Iterator[None]: ...

    def run_in_transaction(self, work: Callable[[], T], *, retries: int = 1) -> T:
        """``work()`` in one transaction. When the connection is lost on the way (a server
        restart), the transaction was rolled back: it runs once more, whole, on a new
        connection. ``work`` must be safe to repeat (it is, when it deletes before it
        inserts or inserts under a fresh key)."""
        for attempt in range(retries + 1):
            try:
                with self.transaction():
                    return work()
            except StoreConnectionError:
                if attempt >= retries:
                    raise
        raise AssertionError("unreachable")

    def table_exists(self, table: str) -> bool:
        return bool(self.run("meta/table_exists.sql", {"table": table}))

    @abstractmethod
    def close(self) -> None: ...

    # -- bulk paths the loader and embedder use ------------------------------------------

    @abstractmethod
    def staging_connection(self) -> Any:
        """A DuckDB connection in which the loader stages and checks an SKB."""

    def release_staging(self, staging: Any) -> None:
        return None

    @abstractmethod
    def ingest_staged(self, staging: Any, replace: bool) -> None:
        """Copy the staged SKB (temp tables of a DuckDB connection) into the store."""

    @abstractmethod
    def write_vectors(self, variant: str, ids: np.ndarray, vectors: np.ndarray) -> None: ...

    @abstractmethod
    def build_vector_index(self, variant: str) -> None: ...

    # -- schema and metadata -------------------------------------------------------------

    def init(self) -> None:
        """Create or upgrade the store's tables (idempotent)."""
        current = self.schema_version()
        if current > SCHEMA_VERSION:
            raise StoreError(
                f"store {self.location} has schema version {current}, newer than this afr "
                f"({SCHEMA_VERSION}); upgrade afr"
            )
        if current == SCHEMA_VERSION:
            return
        with self.transaction():
            for version in range(current + 1, SCHEMA_VERSION + 1):
                for stmt in self.sql(_migration_file(version)):
                    self.execute(stmt)
            self.set_meta("schema_version", str(SCHEMA_VERSION))

    def schema_version(self) -> int:
        if not self.table_exists("afr_meta"):
            return 0
        value = self.get_meta("schema_version")
        return int(value) if value else 0

    def require_initialised(self) -> None:
        if self.schema_version() != SCHEMA_VERSION:
            self.init()

    def get_meta(self, key: str) -> str | None:
        rows = self.run("meta/get.sql", {"key": key})
        return rows[0][0] if rows else None

    def set_meta(self, key: str, value: str) -> None:
        self.run("meta/set.sql", {"key": key, "value": value})

    def skb_name(self) -> str | None:
        if self.schema_version() == 0:
            return None
        return self.get_meta("skb_name")

    def require_skb(self) -> str:
        name = self.skb_name()
        if not name:
            raise StoreError(
                f"store {self.location} holds no SKB yet; load one with "
                "'afr load DIR' (or 'afr demo' for the bundled demo)"
            )
        return name

    def skb_schema(self) -> SkbSchema:
        name = self.require_skb()
        directed = self.get_meta("skb_directed") == "true"
        description = self.get_meta("skb_description") or ""
        node_types = {
            r[0]: NodeType(r[0], r[1], r[2] or "", bool(r[3]))
            for r in self.run("meta/node_types.sql")
        }
        edge_types = {
            r[0]: EdgeType(r[0], r[1], r[2] or "", r[3], r[4])
            for r in self.run("meta/edge_types.sql")
        }
        return SkbSchema(name, description, directed, node_types, edge_types)

    def embedding_model(self, variant: str) -> tuple[str, int] | None:
        rows = self.run("meta/embedding_model.sql", {"variant": variant})
        return (rows[0][0], int(rows[0][1])) if rows else None

    def node_type_counts(self) -> dict[str, int]:
        return {r[0]: int(r[2] or 0) for r in self.run("meta/node_type_counts.sql")}

    def has_vector_index(self, variant: str) -> bool:
        """Whether an approximate (HNSW) index serves this variant's searches."""
        return False


def _migration_file(version: int) -> str:
    matches = sorted(schema_dir().glob(f"{version:03d}_*.sql"))
    if not matches:
        raise StoreError(f"afr is missing its schema file for version {version}")
    return f"schema/{matches[0].name}"


def used_params(stmt: str, params: dict[str, Any] | None) -> dict[str, Any] | None:
    # Drivers reject parameters a statement does not use (DuckDB) — pass only those it names.
    if not params:
        return None
    names = set(_PARAM.findall(stmt))
    names.update(_PG_PARAM.findall(stmt))
    used = {k: v for k, v in params.items() if k in names}
    return used or None


_PARAM = re.compile(r"\$([A-Za-z_][A-Za-z0-9_]*)")
_PG_PARAM = re.compile(r"%\(([A-Za-z_][A-Za-z0-9_]*)\)s")


def redact_url(url: str) -> str:
    """A database URL without its password, for messages and `afr info`."""
    return re.sub(r"(://[^:/@]+:)[^@]*@", r"\1***@", url)

