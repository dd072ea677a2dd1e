"""Where a dropped part of a Cypher query is, in words ("at column N") — the places come
from ``afr.cypher.hints``."""

from __future__ import annotations

from afr.cypher import locate_text


def where(fragment: str, query: str) -> str:
    """" at column N" (" at line L, column N" for a query of several lines), or ""."""
    pos = locate_text(fragment, query)
    if pos is None:
        return ""
    if "\n" in query:
        return f" at line {pos.line + 1}, column {pos.column + 1}"
    return f" at column {pos.column + 1}"


def with_places(notes: list[str], parsed: list, query: str) -> list[str]:
    """Resolution notes (``"text (reason)"`` for the parser's dropped parts, see
    ``afr.cypher.resolve``) with the place of each dropped part in ``query``; ``parsed``
    holds the parser's ``Dropped`` records (or their dicts)."""
    places = {}
    for d in parsed:
        text, reason = (d["text"], d["reason"]) if isinstance(d, dict) else (d.text, d.reason)
        places[f"{text} ({reason})"] = where(text, query)
    return [note + places.get(note, "") for note in notes]
