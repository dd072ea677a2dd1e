"""Everything that differs between DuckDB and PostgreSQL, in one place.

Portable templates in ``sql/`` and ``schema/`` are written once, in DuckDB's dialect;
for PostgreSQL they are transpiled with sqlglot. (What sqlglot cannot carry — COPY,
index methods, JSON accessors — lives in ``<name>.duckdb.sql`` / ``<name>.postgres.sql``
files that run as written: the dialect rule in ``afr.store.base``.) The vector constructs are the only ones
sqlglot cannot translate: templates spell cosine distance as a call to the placeholder
function ``AFR_COSINE_DISTANCE(a, b)`` and an embedding type as a fixed-size
``FLOAT[n]``; this module rewrites both per dialect.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache

COSINE_PLACEHOLDER = "AFR_COSINE_DISTANCE"


@dataclass(frozen=True)
class Dialect:
    name: str  # "duckdb" or "postgres" (sqlglot's names)

    def finish(self, sql: str, *, pretty: bool = False) -> list[str]:
        """Turn rendered DuckDB-dialect SQL into this dialect's statements (``pretty``:
        laid out over lines for people to read, without comments; the same statements)."""
        return list(_finish(self.name, sql, pretty))


DUCKDB = Dialect("duckdb")
POSTGRES = Dialect("postgres")


def _pg_cosine(node):
    """AFR_COSINE_DISTANCE(a, b) → (a <=> b): pgvector's operator, which HNSW serves."""
    from sqlglot import exp

    if isinstance(node, exp.Anonymous) and node.name.upper() == COSINE_PLACEHOLDER:
        a, b = node.expressions
        return exp.Paren(this=exp.Operator(this=a, operator="<=>", expression=b))
    return node


def _postgres_types(node):
    from sqlglot import exp

    if not isinstance(node, exp.DataType):
        return node
    # JSONB supports the operators and indexes we need; plain JSON does not.
    if node.this == exp.DataType.Type.JSON:
        return exp.DataType.build("JSONB")
    # A fixed-size FLOAT array is how templates spell an embedding: pgvector's vector(n).
    sizes = node.args.get("values") or []
    if (
        node.this == exp.DataType.Type.ARRAY
        and len(sizes) == 1
        and node.expressions
        and node.expressions[0].this == exp.DataType.Type.FLOAT
    ):
        return exp.DataType.build(f"vector({sizes[0].name})", dialect="postgres")
    return node


_DUCKDB_COSINE = re.compile(rf"\b{COSINE_PLACEHOLDER}\s*\(", re.IGNORECASE)


def sql_pieces(text: str) -> list[tuple[bool, str]]:
    """``text`` cut into (is_code, piece): quoted strings and identifiers (a doubled quote
    escapes) and comments are not code, so ``;``, ``$`` or ``--`` inside them are text.
    The one SQL scanner: statements are split and placeholders found on its pieces."""
    pieces: list[tuple[bool, str]] = []
    i, start, n = 0, 0, len(text)
    while i < n:
        ch = text[i]
        end = -1
        if ch in "'\"":
            end = i + 1
            while end < n:
                if text[end] == ch:
                    if end + 1 < n and text[end + 1] == ch:
                        end += 2
                        continue
                    break
                end += 1
            end = min(end + 1, n)
        elif text.startswith("--", i):
            end = text.find("\n", i)
            end = n if end < 0 else end
        elif text.startswith("/*", i):
            end = text.find("*/", i + 2)
            end = n if end < 0 else end + 2
        if end < 0:
            i += 1
            continue
        if start < i:
            pieces.append((True, text[start:i]))
        pieces.append((False, text[i:end]))
        i = start = end
    if start < n:
        pieces.append((True, text[start:]))
    return pieces


def split_sql(text: str) -> list[str]:
    """Statements of a script, without comments; ``;`` and ``--`` inside quotes are text."""
    statements: list[str] = []
    current: list[str] = []
    for is_code, piece in sql_pieces(text):
        if not is_code:
            comment = piece.startswith(("--", "/*"))
            current.append(" " if comment and piece.startswith("/*") else
                           "" if comment else piece)
            continue
        parts = piece.split(";")
        current.append(parts[0])
        for part in parts[1:]:
            statements.append("".join(current))
            current = [part]
    statements.append("".join(current))
    return [s.strip() for s in statements if s.strip()]


@lru_cache(maxsize=1024)
def _finish(dialect: str, sql: str, pretty: bool = False) -> tuple[str, ...]:
    if dialect == "duckdb":
        # Templates are written in DuckDB's dialect: only the vector placeholder changes.
        # Skipping a parse-and-print round trip saves milliseconds per new statement.
        return tuple(split_sql(_DUCKDB_COSINE.sub("array_cosine_distance(", sql)))
    import sqlglot  # a fifth of a second to import: only PostgreSQL stores need it

    statements = [s for s in sqlglot.parse(sql, read="duckdb") if s is not None]
    return tuple(
        s.transform(_postgres_types).transform(_pg_cosine).sql(
            "postgres", **({"pretty": True, "comments": False} if pretty else {}))
        for s in statements
    )
