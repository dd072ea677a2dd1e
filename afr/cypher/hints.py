"""Where in the Cypher text a fix applies: line and column for a "did you mean" caret.

``afr cypher`` prints each fix under the line it concerns, with a caret under the word
that was changed. The fix records the word as written (``Fix.before``); this module finds
it again in the text — a label after ``:``, a property after ``.`` or before ``:`` in a
map, the RETURN keyword — and gives up (None) rather than point at the wrong place.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from afr.cypher.fix import Fix

__all__ = ["Hint", "locate"]


@dataclass(frozen=True)
class Hint:
    line: int  # 0-based line of the text
    column: int  # 0-based column of the first character
    width: int


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


def locate(text: str, fix: Fix) -> Hint | None:
    """The first place in ``text`` the fix is about, or None."""
    for pattern in _patterns(fix):
        m = re.search(pattern, text, re.IGNORECASE)
        if m is None:
            continue
        start = m.start() + (len(m.group(0)) - len(m.group(0).lstrip()))
        line = text.count("\n", 0, start)
        column = start - (text.rfind("\n", 0, start) + 1)
        return Hint(line, column, max(1, m.end() - start))
    return None
