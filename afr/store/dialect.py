"""Everything that differs between DuckDB and PostgreSQL, in one place.

Templates in ``sql/`` and ``schema/`` are written once, in DuckDB's dialect. For
PostgreSQL they are transpiled with sqlglot. The vector constructs are the only ones
sqlglot cannot translate: templates spell cosine distance as a call to the placeholder
function ``AFR_COSINE_DISTANCE(a, b)`` and an embedding type as a fixed-size
``FLOAT[n]``; this module rewrites both per dialect.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from functools import lru_cache

import sqlglot
from sqlglot import exp

COSINE_PLACEHOLDER = "AFR_COSINE_DISTANCE"


@dataclass(frozen=True)
class Dialect:
    name: str  # "duckdb" or "postgres" (sqlglot's names)

    def finish(self, sql: str) -> list[str]:
        """Turn rendered DuckDB-dialect SQL into this dialect's statements."""
        return list(_finish(self.name, sql))


DUCKDB = Dialect("duckdb")
POSTGRES = Dialect("postgres")


def _vector_ops(dialect: str) -> Callable[[exp.Expression], exp.Expression]:
    def transform(node: exp.Expression) -> exp.Expression:
        if isinstance(node, exp.Anonymous) and node.name.upper() == COSINE_PLACEHOLDER:
            a, b = node.expressions
            if dialect == "duckdb":
                return exp.Anonymous(this="array_cosine_distance", expressions=[a, b])
            # pgvector's cosine-distance operator; the HNSW index serves ORDER BY on it.
            return exp.Paren(this=exp.Operator(this=a, operator="<=>", expression=b))
        return node

    return transform


def _postgres_types(node: exp.Expression) -> exp.Expression:
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


@lru_cache(maxsize=1024)
def _finish(dialect: str, sql: str) -> tuple[str, ...]:
    statements = [s for s in sqlglot.parse(sql, read="duckdb") if s is not None]
    if dialect == "duckdb":
        return tuple(s.transform(_vector_ops("duckdb")).sql("duckdb") for s in statements)
    return tuple(
        s.transform(_postgres_types).transform(_vector_ops("postgres")).sql("postgres")
        for s in statements
    )
