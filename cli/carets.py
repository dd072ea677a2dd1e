"""Where a dropped part of a Cypher query is: line, column and a caret line under it.

The parser reports what it dropped as text (``Dropped.text``, possibly cut short with
" …"); finding that text in the query the user typed gives its position."""

from __future__ import annotations

import re
from dataclasses import dataclass


@dataclass(frozen=True)
class Position:
    line: int  # 1-based
    column: int  # 1-based
    length: int
    source_line: str

    def caret_lines(self, indent: str = "") -> list[str]:
        """The query's line and, under it, carets marking the dropped part."""
        width = max(1, min(self.length, len(self.source_line) - self.column + 1))
        return [indent + self.source_line,
                indent + " " * (self.column - 1) + "^" + "~" * (width - 1)]


def locate(fragment: str, query: str) -> Position | None:
    """The first place ``fragment`` occurs in ``query``; whitespace may differ. None when
    it is not there (the parser's own words, such as "RETURN" for a missing clause)."""
    text = fragment.removesuffix("…").strip()
    if not text:
        return None
    words = [re.escape(w) for w in text.split()]
    match = re.search(r"\s+".join(words), query)
    if match is None:
        return None
    start = match.start()
    line_start = query.rfind("\n", 0, start) + 1
    line_end = query.find("\n", start)
    line_end = len(query) if line_end < 0 else line_end
    return Position(line=query.count("\n", 0, start) + 1, column=start - line_start + 1,
                    length=match.end() - start, source_line=query[line_start:line_end])


def where(fragment: str, query: str) -> str:
    """" at column N" (" at line L, column N" for a query of several lines), or ""."""
    pos = locate(fragment, query)
    if pos is None:
        return ""
    if "\n" in query:
        return f" at line {pos.line}, column {pos.column}"
    return f" at column {pos.column}"


def with_places(notes: list[str], parsed: list, query: str) -> list[str]:
    """Resolution notes (``"text (reason)"`` for the parser's dropped parts, see
    ``afr.cypher.resolve``) with the place of each dropped part in ``query``; ``parsed``
    holds the parser's ``Dropped`` records (or their dicts)."""
    places = {}
    for d in parsed:
        text, reason = (d["text"], d["reason"]) if isinstance(d, dict) else (d.text, d.reason)
        places[f"{text} ({reason})"] = where(text, query)
    return [note + places.get(note, "") for note in notes]
