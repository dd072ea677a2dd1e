"""The grounding SQL as commands print it: pretty-printed for the store that ran it, with
its values inlined as literals (re-runs as it is: ``afr sql "…"``), and in JSON also
with ``$name`` placeholders and their values (``afr sql "…" --param NAME=VALUE``)."""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from typing import Any

import click

from afr.errors import AfrError

CYCLIC_NOTE = (
    "the query graph has a cycle: its grounding is a loop over temp tables (each "
    "CREATE once, then the refinements again until no set changes), not one query, so "
    "afr sql (read-only) cannot re-run it")


def inlined(store, statements: Sequence[str], params: dict[str, Any]) -> list[str]:
    from afr.store import inline_params

    return [inline_params(s, params, store.dialect) for s in statements]


def grounding_json(store, statements: Sequence[str], params: dict[str, Any], *,
                   cyclic: bool) -> dict[str, Any]:
    """The grounding SQL for JSON output: ``sql`` with values inlined,
    ``sql_with_params`` with ``$name`` placeholders, and ``params`` (their values)."""
    from afr.store import placeholders, pretty

    used = {name for s in statements for name in placeholders(s)}
    data: dict[str, Any] = {
        "sql": inlined(store, statements, params),
        "sql_with_params": [pretty(s, store.dialect) for s in statements],
        "params": {k: v for k, v in params.items() if k in used},
        "cyclic": cyclic,
    }
    if cyclic:
        data["note"] = CYCLIC_NOTE
    return data


_JSON_VALUE = re.compile(r'^(-?\d+(\.\d+)?|\[.*\]|".*"|true|false|null)$', re.DOTALL)


def parse_params(pairs: Sequence[str]) -> dict[str, Any]:
    """``--param NAME=VALUE`` pairs: VALUE is read as JSON when it is a plain number
    (``42``, ``-1.5``), a list (``[1, 2]``), a quoted string, true, false or null; anything
    else is text. Exponent forms stay text: an id like ``813e5709`` is no number."""
    out: dict[str, Any] = {}
    for pair in pairs:
        name, sep, text = pair.partition("=")
        name = name.strip().lstrip("$")
        if not sep or not name.isidentifier():
            raise AfrError(f"--param {pair!r}: write NAME=VALUE")
        value: Any = text
        if _JSON_VALUE.match(text.strip()):
            try:
                value = json.loads(text)
            except ValueError:
                value = text
        if isinstance(value, dict) or (isinstance(value, list) and any(
                isinstance(v, dict | list) for v in value)):
            raise AfrError(f"--param {name}: give a number, a text or a list of them")
        out[name] = value
    return out


def echo_statements(statements: Sequence[str], *, indent: str = "") -> None:
    for stmt in statements:
        text = stmt.rstrip().rstrip(";") + ";"
        click.echo("\n".join(indent + line for line in text.splitlines()))
