"""The DDL of a store, printed for a DBA to review and apply (``afr init --print-sql``).

It is what ``Store.init`` and ``afr embed`` run, rendered by the same dialect rule for the
target store, without connecting to it: afr's schema and extension (PostgreSQL), every
table of every migration, the indexes a load builds, the version record, and — given the
embedding dimension — the vector tables with their approximate (HNSW) indexes."""

from __future__ import annotations

import re
from functools import cache

from afr.store.base import (
    SCHEMA_VERSION,
    TYPE_INDEX_MIN_NODES,
    VECTOR_VARIANTS,
    check_identifier,
    migration_file,
    migration_versions,
    render_template,
)
from afr.store.dialect import DUCKDB, Dialect


def store_ddl(dialect: Dialect, *, schema: str = "afr", dim: int | None = None) -> str:
    """A script of ``;``-terminated statements that ``psql`` (or ``duckdb``) runs as is."""
    check_identifier(schema, "schema name")
    parts: list[tuple[str, list[str]]] = [
        ("afr's schema, and pgvector where it is missing",
         render_template("setup/ddl_preamble.sql", dialect, schema=schema)),
    ]
    for version in migration_versions():
        name = migration_file(version)
        parts.append((name.removeprefix("schema/"), render_template(name, dialect, pretty=True)))
    parts.append(("indexes (a load drops and rebuilds them around its bulk copy)",
                  render_template("load/indexes.sql", dialect)))
    parts.append(("the schema version afr checks",
                  render_template("setup/record_version.sql", dialect, pretty=True,
                                  version=SCHEMA_VERSION)))
    if dim is not None:
        for variant in VECTOR_VARIANTS:
            parts.append((f"vectors of the {variant} documents ({dim} dimensions)",
                          render_template("embed/create_table.sql", dialect, pretty=True,
                                          variant=variant, dim=int(dim))
                          + render_template("embed/hnsw.sql", dialect, variant=variant)))
    if dim is not None and dialect.name == "postgres":
        parts.append(("per node type, afr also keeps an HNSW index of each vector table "
                      "(emb_<variant>_hnsw_t<type code>) for every type of at least "
                      f"{TYPE_INDEX_MIN_NODES:,} nodes: the SKB's types are known only once it "
                      "is loaded, so the table owner's first 'afr embed' builds them (or "
                      "'afr info' names those missing)", []))
    lines = [f"-- afr store DDL ({dialect.name}), schema version {SCHEMA_VERSION}",
             "-- one transaction: applied whole, or not at all", "BEGIN;"]
    created: set[str] = set()
    for title, statements in parts:
        kept = [stmt for stmt in statements if _new_object(stmt, created)]
        lines.append(f"\n-- {title}")
        lines.extend(f"{stmt};" for stmt in kept)
    lines.append("\nCOMMIT;")
    return "\n".join(lines) + "\n"


@cache
def own_table_names() -> frozenset[str]:
    """The names of every table afr creates in a store (its vector tables too)."""
    return frozenset(found.group(1).lower() for found in
                     _CREATE_TABLE.finditer(store_ddl(DUCKDB, dim=1)))


# DuckDB's statements, some of which (a column's COMPRESSION) sqlglot does not parse
_CREATE_TABLE = re.compile(r'^\s*CREATE\s+TABLE\s+(?:IF\s+NOT\s+EXISTS\s+)?"?(\w+)"?',
                           re.IGNORECASE | re.MULTILINE)


_CREATE_INDEX = re.compile(r"^\s*CREATE\s+(?:UNIQUE\s+)?INDEX\s+(?:IF\s+NOT\s+EXISTS\s+)?"
                           r'"?([\w.]+)"?', re.IGNORECASE)


def _new_object(statement: str, created: set[str]) -> bool:
    """Whether ``statement`` is not a second CREATE INDEX of an index made already (a
    migration and the load's index list may both make one: the DDL makes it once)."""
    found = _CREATE_INDEX.match(statement)
    if found is None:
        return True
    name = found.group(1).lower()
    if name in created:
        return False
    created.add(name)
    return True
