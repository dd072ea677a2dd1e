"""SQL for people: a store's statement pretty-printed, with its parameters shown either as
named placeholders (``$name``, which ``afr sql --param name=value`` binds) or inlined as
literals of the store's dialect, so the printed text re-runs as it is.

Statements run with bound parameters (``$name`` on DuckDB, ``%(name)s`` once transpiled
for PostgreSQL); this module only makes them readable and re-runnable. Literals are
rendered by sqlglot for the store's dialect: strings quoted with doubled quotes, lists of
numbers as array literals. It also binds the parameters a user gives ``afr sql``: the same
``$name`` placeholders work on both stores.
"""

from __future__ import annotations

import re
from typing import Any

from afr.errors import AfrError
from afr.store.dialect import Dialect, sql_pieces

_NAME = r"[A-Za-z_][A-Za-z0-9_]*"
# A named placeholder: $name (DuckDB, and what users write) or %(name)s (psycopg).
_PLACEHOLDER = re.compile(rf"\$({_NAME})(?![\w$])|%\(({_NAME})\)s")
_MARK = "afr_param__"


def _replace_placeholders(sql: str, replace: Any) -> str:
    """``sql`` with every placeholder outside quotes replaced by ``replace(name)``."""
    out = []
    for is_code, piece in sql_pieces(sql):
        if is_code:
            piece = _PLACEHOLDER.sub(lambda m: replace(m.group(1) or m.group(2)), piece)
        out.append(piece)
    return "".join(out)


def placeholders(sql: str) -> list[str]:
    """The parameter names a statement uses, in order of first use."""
    names: list[str] = []
    _replace_placeholders(sql, lambda name: names.append(name) or "")
    return list(dict.fromkeys(names))


def literal(value: Any, dialect: Dialect) -> str:
    """``value`` as a SQL literal of ``dialect`` (sqlglot renders and quotes it)."""
    from sqlglot import exp

    if hasattr(value, "tolist"):  # numpy scalars and arrays
        value = value.tolist()
    if isinstance(value, tuple):
        value = list(value)
    if isinstance(value, list) and not all(
            isinstance(v, int | float | str) and not isinstance(v, bool) for v in value):
        raise AfrError(f"cannot write {value!r} as a SQL literal")
    if not isinstance(value, int | float | str | list | bool) and value is not None:
        raise AfrError(f"cannot write {value!r} as a SQL literal")
    return exp.convert(value).sql(dialect=dialect.name)


def pretty(sql: str, dialect: Dialect) -> str:
    """``sql`` (one statement) over several lines, placeholders kept as ``$name``; the text
    as it was (placeholders as ``$name``) when sqlglot cannot read it."""
    import sqlglot

    marked = _replace_placeholders(sql, lambda name: f"{_MARK}{name}")
    try:
        parsed = [s for s in sqlglot.parse(marked, read=dialect.name) if s is not None]
        text = ";\n".join(s.sql(dialect=dialect.name, pretty=True) for s in parsed)
    except sqlglot.errors.SqlglotError:
        text = marked
    return re.sub(rf"\b{_MARK}({_NAME})", r"$\1", text)


def inline_params(sql: str, params: dict[str, Any] | None, dialect: Dialect, *,
                  format_sql: bool = True) -> str:
    """``sql`` with every placeholder replaced by its value as a literal (pretty-printed
    first when ``format_sql``): the statement re-runs as it is, with ``afr sql``."""
    params = params or {}
    text = pretty(sql, dialect) if format_sql else sql

    def value_of(name: str) -> str:
        if name not in params:
            raise AfrError(f"no value for the SQL parameter ${name}")
        return literal(params[name], dialect)

    return _replace_placeholders(text, value_of)


def bind_user_params(sql: str, params: dict[str, Any], dialect: Dialect
                     ) -> tuple[str, dict[str, Any] | None]:
    """A user's statement with ``$name`` placeholders and its values, as the store's driver
    takes them: the values the statement names (every one must be given); on PostgreSQL
    the placeholders become psycopg's ``%(name)s`` and a literal ``%`` is doubled."""
    used = placeholders(sql)
    missing = [name for name in used if name not in params]
    if missing:
        raise AfrError("no value for " + ", ".join(f"${n}" for n in missing)
                       + ": add --param NAME=VALUE")
    unused = sorted(set(params) - set(used))
    if unused:
        raise AfrError("the query does not use " + ", ".join(f"${n}" for n in unused))
    values = {name: params[name] for name in used} or None
    if dialect.name != "postgres" or values is None:
        return sql, values
    # psycopg reads every % of a statement with parameters as a placeholder's start.
    out = []
    for is_code, piece in sql_pieces(sql):
        if not is_code:
            out.append(piece.replace("%", "%%"))
            continue
        last = 0
        for m in _PLACEHOLDER.finditer(piece):
            out.append(piece[last:m.start()].replace("%", "%%"))
            out.append(f"%({m.group(1) or m.group(2)})s")
            last = m.end()
        out.append(piece[last:].replace("%", "%%"))
    return "".join(out), values
