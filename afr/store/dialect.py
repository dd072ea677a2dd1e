"""Everything that differs between DuckDB, PostgreSQL and Spark SQL, in one place.

Portable templates in ``sql/`` and ``schema/`` are written once, in DuckDB's dialect;
for PostgreSQL and Spark they are transpiled with sqlglot. (What sqlglot cannot carry — COPY,
index methods, JSON accessors — lives in ``<name>.duckdb.sql`` / ``<name>.postgres.sql``
files that run as written: the dialect rule in ``afr.store.base``.) The vector constructs are the only ones
sqlglot cannot translate: templates spell cosine distance as a call to the placeholder
function ``AFR_COSINE_DISTANCE(a, b)`` and an embedding type as a fixed-size
``FLOAT[n]``; this module rewrites both per dialect. Spark has no JSON type (JSON is text
there, decoded by the store), allows one generator per SELECT (DuckDB's parallel
``unnest`` calls become positions into their arrays), has no indexes (CREATE and DROP
INDEX are left out) and reads a JSON list's elements from the list itself: rewritten
here too.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache

COSINE_PLACEHOLDER = "AFR_COSINE_DISTANCE"


@dataclass(frozen=True)
class Dialect:
    name: str  # "duckdb", "postgres" or "spark" (sqlglot's names)

    def finish(self, sql: str, *, pretty: bool = False) -> list[str]:
        """Turn rendered DuckDB-dialect SQL into this dialect's statements (``pretty``:
        laid out over lines for people to read, without comments; the same statements)."""
        return list(_finish(self.name, sql, pretty))


DUCKDB = Dialect("duckdb")
POSTGRES = Dialect("postgres")
SPARK = Dialect("spark")


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
    if dialect == "spark":
        return tuple(out for s in statements if (out := _spark_statement(s, pretty)))
    return tuple(
        s.transform(_postgres_types).transform(_pg_cosine).sql(
            "postgres", **({"pretty": True, "comments": False} if pretty else {}))
        for s in statements
    )


# -- Spark -------------------------------------------------------------------------------

# 1 - a·b / (|a| |b|), in double precision as DuckDB's array_cosine_distance computes it
_SPARK_COSINE = (
    "1 - AGGREGATE(ZIP_WITH(afr_a, afr_b, (x, y) -> CAST(x AS DOUBLE) * y), "
    "CAST(0 AS DOUBLE), (s, v) -> s + v) / (SQRT(AGGREGATE(afr_a, CAST(0 AS DOUBLE), "
    "(s, x) -> s + CAST(x AS DOUBLE) * x)) * SQRT(AGGREGATE(afr_b, CAST(0 AS DOUBLE), "
    "(s, x) -> s + CAST(x AS DOUBLE) * x)))")
_POSITION = "afr_pos"


def _spark_statement(statement, pretty: bool = False) -> str | None:
    """One parsed DuckDB-dialect statement as Spark SQL; None for one Spark goes without."""
    from sqlglot import exp

    if isinstance(statement, exp.Create | exp.Drop) and statement.kind == "INDEX":
        return None
    finished = (statement.transform(_spark_types).transform(_spark_cosine)
                .transform(_spark_percentile).transform(_spark_json_list)
                .transform(_parallel_unnest))
    return finished.sql("spark", **({"pretty": True, "comments": False} if pretty else {}))


def _spark_types(node):
    from sqlglot import exp

    if not isinstance(node, exp.DataType):
        return node
    if node.this == exp.DataType.Type.JSON:
        return exp.DataType.build("STRING")
    if node.this == exp.DataType.Type.ARRAY and node.args.get("values"):
        return exp.DataType(this=exp.DataType.Type.ARRAY, expressions=node.expressions,
                            nested=True)
    return node


def _spark_percentile(node):
    """DuckDB's quantile_cont(x, q) → Spark's percentile(x, q) (the same interpolation;
    sqlglot would write a percentile_cont call Spark does not take)."""
    from sqlglot import exp

    if isinstance(node, exp.PercentileCont) and node.expression is not None:
        return exp.func("percentile", node.this.copy(), node.expression.copy())
    return node


def _spark_json_list(node):
    """``CAST(json_extract_string(j, '$.k[*]') AS VARCHAR[])`` (a JSON list's elements as
    text) reads the list ``$.k`` itself on Spark: its get_json_object returns a wildcard's
    only match unwrapped (``"a"``, not ``["a"]``), which no longer reads as a list."""
    from sqlglot import exp

    if not (isinstance(node, exp.Cast) and node.to.this == exp.DataType.Type.ARRAY
            and isinstance(node.this, exp.JSONExtractScalar)):
        return node
    path = node.this.expression
    steps = path.expressions if isinstance(path, exp.JSONPath) else []
    if len(steps) > 1 and isinstance(steps[-1], exp.JSONPathSubscript) \
            and isinstance(steps[-1].this, exp.JSONPathWildcard):
        path.set("expressions", steps[:-1])
    return node


def _spark_cosine(node):
    from sqlglot import exp, parse_one

    if not (isinstance(node, exp.Anonymous) and node.name.upper() == COSINE_PLACEHOLDER):
        return node
    a, b = node.expressions
    spelled = parse_one(_SPARK_COSINE, read="spark")
    for column in list(spelled.find_all(exp.Column)):
        if column.name in ("afr_a", "afr_b"):
            column.replace(exp.Paren(this=(a if column.name == "afr_a" else b).copy()))
    return exp.Paren(this=spelled)


def _parallel_unnest(node):
    """``SELECT x, unnest(A), unnest(B)`` (no FROM) → ``SELECT x, element_at(A, p + 1),
    element_at(B, p + 1) FROM (SELECT posexplode(A) AS (p, v))``."""
    from sqlglot import exp, parse_one

    if not isinstance(node, exp.Select) or node.args.get("from_") or node.args.get("from"):
        return node
    lists = [e for p in node.expressions for e in p.find_all(exp.Explode)
             if e.parent_select is node]
    if len(lists) < 2:
        return node
    first = lists[0].this.copy()
    position = exp.Add(this=exp.column(_POSITION), expression=exp.Literal.number(1))
    for explode in lists:
        explode.replace(exp.func("element_at", explode.this.copy(), position.copy()))
    source = parse_one(f"SELECT posexplode(afr_list) AS ({_POSITION}, afr_value)",
                       read="spark")
    next(source.find_all(exp.Column)).replace(first)
    return node.from_(exp.Subquery(this=source, alias=exp.TableAlias(
        this=exp.to_identifier("afr_positions"))), copy=False)

