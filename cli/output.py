"""Printing results: aligned text tables for people, JSON and CSV for machines."""

from __future__ import annotations

import csv
import datetime as dt
import decimal
import io
import json
import math
from collections.abc import Sequence
from typing import Any

import click


def _cell(value: Any, max_width: int) -> str:
    if isinstance(value, decimal.Decimal):  # PostgreSQL's numeric: read like a float
        value = float(value) if value.is_finite() or value.is_infinite() else math.nan
    if value is None:
        text = ""  # NULL: an empty cell, unlike NaN and infinity, which say what they are
    elif isinstance(value, float) and not math.isfinite(value):
        text = "NaN" if math.isnan(value) else ("inf" if value > 0 else "-inf")
    elif isinstance(value, float):
        text = f"{value:.4g}"
    elif isinstance(value, dt.timedelta):
        text = str(value)
    elif isinstance(value, dict | list | tuple):
        text = json.dumps(value, ensure_ascii=False, default=str)
    else:
        text = str(value)
    text = " ".join(text.split())  # one line per row, whatever the cell holds
    if max_width and len(text) > max_width:
        text = text[: max_width - 1] + "…"
    return text


def plural(n: int, word: str, words: str | None = None) -> str:
    """``1 answer``, ``2 answers`` (``words``: the plural when it is not word + s)."""
    return f"{n:,} {word if n == 1 else words or word + 's'}"


def format_table(columns: Sequence[str], rows: Sequence[Sequence[Any]], *,
                 max_width: int = 60) -> str:
    cells = [[_cell(v, max_width) for v in row] for row in rows]
    widths = [len(c) for c in columns]
    for row in cells:
        for i, text in enumerate(row):
            widths[i] = max(widths[i], len(text))
    numeric = [
        all(isinstance(r[i], int | float | decimal.Decimal) and not isinstance(r[i], bool)
            or r[i] is None for r in rows) and rows
        for i in range(len(columns))
    ]

    def line(values: Sequence[str]) -> str:
        parts = [v.rjust(w) if numeric[i] else v.ljust(w)
                 for i, (v, w) in enumerate(zip(values, widths, strict=True))]
        return "  ".join(parts).rstrip()

    out = [line(list(columns)), "  ".join("─" * w for w in widths)]
    out += [line(r) for r in cells]
    return "\n".join(out)


def iso_duration(value: dt.timedelta) -> str:
    """An interval as ISO 8601 (``P1DT2H3M4.5S``), as JSON has no interval type (Python's
    own text, "1 day, 0:00:00", is for people)."""
    sign = "-" if value < dt.timedelta(0) else ""
    value = abs(value)
    hours, rest = divmod(value.seconds, 3600)
    minutes, seconds = divmod(rest, 60)
    fraction = f"{seconds + value.microseconds / 1e6:.6f}".rstrip("0").rstrip(".")
    time = "".join(f"{n}{unit}" for n, unit in ((hours, "H"), (minutes, "M")) if n)
    if seconds or value.microseconds or not (value.days or time):
        time += f"{fraction}S"
    return f"{sign}P" + (f"{value.days}D" if value.days else "") + (f"T{time}" if time else "")


def _jsonable(value: Any) -> Any:
    if isinstance(value, dt.date | dt.datetime | dt.time):
        return value.isoformat()
    if isinstance(value, dt.timedelta):
        return iso_duration(value)
    if isinstance(value, decimal.Decimal):
        return float(value)
    if isinstance(value, bytes):
        return value.hex()
    if hasattr(value, "tolist"):
        return value.tolist()
    return value


def finite(data: Any) -> Any:
    """``data`` with every NaN or infinite float replaced by None: JSON has no NaN, and
    most readers reject the bare ``NaN`` Python would write."""
    if isinstance(data, float):
        return data if math.isfinite(data) else None
    if isinstance(data, dict):
        return {k: finite(v) for k, v in data.items()}
    if isinstance(data, list | tuple):
        return [finite(v) for v in data]
    if hasattr(data, "tolist"):  # numpy values
        return finite(data.tolist())
    return data


def json_text(data: Any, *, indent: int | None = 2) -> str:
    """The one way commands print JSON: strict (no NaN), non-ASCII kept, dates as text."""
    return json.dumps(finite(data), indent=indent, ensure_ascii=False, default=_json_default,
                      allow_nan=False)


def _json_default(value: Any) -> Any:
    converted = _jsonable(value)
    return str(value) if converted is value else converted


def to_json(columns: Sequence[str], rows: Sequence[Sequence[Any]]) -> str:
    data = [{c: _jsonable(v) for c, v in zip(columns, row, strict=True)} for row in rows]
    return json_text(data)


def to_csv(columns: Sequence[str], rows: Sequence[Sequence[Any]]) -> str:
    buf = io.StringIO()
    writer = csv.writer(buf, lineterminator="\n")
    writer.writerow(columns)
    for row in rows:
        writer.writerow([
            json.dumps(v, default=str) if isinstance(v, dict | list) else _jsonable(v)
            for v in row
        ])
    return buf.getvalue()


def echo_rows(columns: Sequence[str], rows: Sequence[Sequence[Any]], fmt: str,
              max_width: int = 60) -> None:
    if fmt == "json":
        click.echo(to_json(columns, rows))
    elif fmt == "csv":
        click.echo(to_csv(columns, rows), nl=False)
    else:
        click.echo(format_table(columns, rows, max_width=max_width))
        from .context import aside

        aside(f"({plural(len(rows), 'row')})")
