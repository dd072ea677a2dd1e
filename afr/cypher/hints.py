"""Places in the Cypher text a user typed: where the parser dropped a part, where a fix
applies — and the caret line that shows it under the query.

The parser reports what it dropped as text (``Dropped.text``, possibly cut short with
" …"); a fix records the word as written (``Fix.before``). Both are found again in the
text — a label after ``:``, a property after ``.`` or before ``:`` in a map, the RETURN
keyword — and the search gives up (None) rather than point at the wrong place.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from afr.cypher.fix import Fix

__all__ = ["Position", "locate", "locate_text"]


@dataclass(frozen=True)
class Position:
    line: int  # 0-based line of the text
    column: int  # 0-based column of the first character
    width: int

    def caret_lines(self, text: str, *, indent: str = "", fill: str = "~",
                    label: str = "") -> list[str]:
        """The text's line and, under it, a caret marking the place (``^~~~``, or
        ``^^^^`` with ``fill="^"``), followed by ``label``."""
        lines = text.splitlines() or [""]
        source = lines[min(self.line, len(lines) - 1)]
        width = max(1, min(self.width, len(source) - self.column))
        marks = "^" + fill * (width - 1)
        # A query of several lines gets a gutter with line numbers, as compilers print.
        number = f"{self.line + 1} | " if len(lines) > 1 else ""
        blank = " " * (len(number) - 2) + "| " if number else ""
        return [indent + number + source,
                indent + blank + " " * self.column + marks + (f" {label}" if label else "")]


def _position(text: str, start: int, end: int) -> Position:
    line_start = text.rfind("\n", 0, start) + 1
    return Position(text.count("\n", 0, start), start - line_start, max(1, end - start))


def locate_text(fragment: str, text: str) -> Position | None:
    """The first place ``fragment`` occurs in ``text``; whitespace may differ. None when it
    is not there (the parser's own words, such as "RETURN" for a missing clause)."""
    words = [re.escape(w) for w in fragment.removesuffix("…").split()]
    if not words:
        return None
    match = re.search(r"\s+".join(words), text)
    return None if match is None else _position(text, match.start(), match.end())


def _name(written: str) -> str:
    return rf"`?{re.escape(written.strip('`'))}`?(?![\w`])"


def _patterns(fix: Fix) -> list[str]:
    before = fix.before or ""
    if fix.kind.startswith(("node_label", "edge_label")) and before:
        return [rf"(?<=:)\s*{_name(before)}"]
    if fix.kind in ("property", "property_typo", "dropped_property") and before:
        attribute = before.split(" ", 1)[0].split(".", 1)[-1]
        return [rf"(?<=\.){_name(attribute)}", rf"(?<=[{{,\s]){_name(attribute)}(?=\s*:)"]
    if fix.kind == "direction":
        edge = re.search(r"\[:([^\]*]+)", before)
        return [rf"(?<=:)\s*{_name(edge.group(1))}"] if edge else []
    if fix.kind == "target":
        return [r"\bRETURN\b", r"$"]
    return []


def locate(text: str, fix: Fix) -> Position | None:
    """The first place in ``text`` the fix is about, or None."""
    for pattern in _patterns(fix):
        m = re.search(pattern, text, re.IGNORECASE)
        if m is None:
            continue
        start = m.start() + (len(m.group(0)) - len(m.group(0).lstrip()))
        return _position(text, start, m.end())
    return None
