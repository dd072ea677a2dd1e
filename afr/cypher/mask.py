"""Masking and bracket helpers for the Cypher grammar.

String literals and backticked names are replaced by placeholders (``\x00S3\x00``,
``\x00B0\x00``) in one linear scan, so nothing inside them can be mistaken for syntax;
the bracket helpers then split and match on the masked text. Every helper is linear in
its input.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

_MASK = re.compile(r"\x00([SB])(\d++)\x00")
_OPEN, _CLOSE = "([{", ")]}"
# What opens a string literal (typographic quotes too) or a backticked name.
_QUOTES = "'\"`\u201c"


@dataclass
class Masked:
    text: str
    strings: list[str] = field(default_factory=list)
    names: list[str] = field(default_factory=list)

    def unmask(self, text: str) -> str:
        def put(m: re.Match[str]) -> str:
            kind, i = m.group(1), int(m.group(2))
            pool = self.strings if kind == "S" else self.names
            if i >= len(pool):
                return ""
            return repr(pool[i]) if kind == "S" else f"`{pool[i]}`"

        return _MASK.sub(put, text)

    def placeholder(self, token: str) -> tuple[str, str] | None:
        """(kind, content) when ``token`` is exactly one masked literal."""
        m = _MASK.fullmatch(token.strip())
        if not m:
            return None
        pool = self.strings if m.group(1) == "S" else self.names
        i = int(m.group(2))
        return (m.group(1), pool[i]) if i < len(pool) else None


def _is_apostrophe(text: str, j: int) -> bool:
    """A ' between two letters inside a '…' string is an unescaped apostrophe (Crohn's)."""
    return (0 < j < len(text) - 1 and text[j - 1].isalnum() and text[j + 1].isalpha()
            and (j + 2 >= len(text) or text[j + 2] != "'"))


def mask(text: str) -> Masked:
    """Replace string literals and backticked names by placeholders (one linear scan)."""
    masked = Masked("")
    out: list[str] = []
    dead: set[str] = set()  # quote kinds that once ran to the end unclosed
    i, n = 0, len(text)
    while i < n:
        ch = text[i]
        if ch == "/" and text.startswith(("//", "/*"), i):
            # Comments go in the same scan as strings: "// the drug's targets" must not
            # open a string literal, and "//" inside a string is not a comment.
            i, blank = _past_comment(text, i)
            out.append(blank)
            continue
        if ch in _QUOTES and ch not in dead:
            literal = _literal(text, i)
            if literal is not None:
                value, close = literal
                pool = masked.names if ch == "`" else masked.strings
                pool.append(value)
                out.append(f"\x00{'B' if ch == '`' else 'S'}{len(pool) - 1}\x00")
                i = close + 1
                continue
            # Unterminated: an apostrophe in prose or a cut-off reply. The quote stays an
            # ordinary character, and so does every later one of its kind (a rescan from
            # each would make masking quadratic).
            dead.add(ch)
        out.append(ch)
        i += 1
    masked.text = "".join(out)
    return masked


def _past_comment(text: str, start: int) -> tuple[int, str]:
    """Where the ``//`` or ``/*`` comment at ``start`` ends, and what stands in for it:
    nothing for a line comment (its newline stays), a space for a block comment."""
    if text[start + 1] == "/":
        end = text.find("\n", start)
        return (len(text) if end < 0 else end), ""
    end = text.find("*/", start + 2)
    return (len(text) if end < 0 else end + 2), " "


def _literal(text: str, start: int) -> tuple[str, int] | None:
    """The value of the literal whose opening quote is at ``start``, and the index of its
    closing quote; None when it is never closed."""
    quote, j, n = text[start], start + 1, len(text)
    if quote == "\u201c":
        # “typographic quotes” (text pasted through a word processor): no escapes
        end = text.find("\u201d", j)
        return None if end < 0 else (text[j:end], end)
    buf: list[str] = []
    while j < n:
        c = text[j]
        if c == "\\" and quote != "`" and j + 1 < n:
            nxt = text[j + 1]
            buf.append({"n": "\n", "t": "\t"}.get(nxt, nxt))
            j += 2
            continue
        if c == quote:
            if j + 1 < n and text[j + 1] == quote:  # doubled quote inside
                buf.append(quote)
                j += 2
                continue
            if quote == "'" and _is_apostrophe(text, j):
                buf.append(c)
                j += 1
                continue
            return "".join(buf), j
        buf.append(c)
        j += 1
    return None


# -- brackets --------------------------------------------------------------------------


def _matching(text: str) -> dict[int, int]:
    """Position of every bracket that is properly closed → position of its closer."""
    pairs: dict[int, int] = {}
    stack: list[int] = []
    for i, ch in enumerate(text):
        if ch in _OPEN:
            stack.append(i)
        elif ch in _CLOSE:
            want = _OPEN[_CLOSE.index(ch)]
            # Unwind to the nearest opener of the same kind; stray openers stay unclosed.
            for k in range(len(stack) - 1, -1, -1):
                if text[stack[k]] == want:
                    pairs[stack[k]] = i
                    del stack[k:]
                    break
    return pairs


def inside_brackets(text: str) -> list[bool]:
    """For each position: is it inside a closed bracket pair?"""
    delta = [0] * (len(text) + 1)
    for start, end in _matching(text).items():
        delta[start + 1] += 1
        delta[end] -= 1
    inside, depth = [], 0
    for i in range(len(text)):
        depth += delta[i]
        inside.append(depth > 0)
    return inside


def close_of(text: str, start: int) -> int:
    """Index of the bracket closing the one at ``start``, or -1 (nesting-aware, linear)."""
    depth = 0
    for i in range(start, len(text)):
        ch = text[i]
        if ch in _OPEN:
            depth += 1
        elif ch in _CLOSE:
            depth -= 1
            if depth == 0:
                return i
    return -1


def strip_parens(text: str) -> str:
    """Remove redundant outer parentheses: ``((a.x = 1))`` → ``a.x = 1``."""
    text = text.strip()
    if not (text.startswith("(") and text.endswith(")")):
        return text
    pairs = _matching(text)
    lo, hi = 0, len(text) - 1
    while lo < hi and text[lo] == "(" and pairs.get(lo) == hi:
        lo += 1
        hi -= 1
        while lo <= hi and text[lo].isspace():
            lo += 1
        while hi >= lo and text[hi].isspace():
            hi -= 1
    return text[lo:hi + 1]


def split_top(text: str, sep: str) -> list[str]:
    """Split on ``sep`` outside (), [] and {}."""
    parts, depth, start = [], 0, 0
    for i, ch in enumerate(text):
        if ch in _OPEN:
            depth += 1
        elif ch in _CLOSE:
            depth = max(0, depth - 1)
        elif ch == sep and depth == 0:
            parts.append(text[start:i])
            start = i + 1
    parts.append(text[start:])
    return [p for p in (x.strip() for x in parts) if p]


_BOOL_SPLITTERS = {
    word: re.compile(rf"[()\[\]{{}}]|(?<![\w.]){word}\b", re.IGNORECASE) for word in ("AND", "OR")
}


def split_bool(text: str, word: str) -> list[str]:
    """Split on a boolean keyword (AND / OR) outside brackets."""
    parts, depth, start = [], 0, 0
    # Jump from bracket to keyword with one C-level scan instead of a Python loop per char.
    for m in _BOOL_SPLITTERS[word].finditer(text):
        ch = m.group(0)
        if ch in _OPEN:
            depth += 1
        elif ch in _CLOSE:
            depth = max(0, depth - 1)
        elif depth == 0:
            parts.append(text[start:m.start()])
            start = m.end()
    parts.append(text[start:])
    return [p.strip() for p in parts if p.strip()]


def has_control(name: str) -> bool:
    return any(ord(ch) < 32 or ord(ch) == 127 for ch in name)


def nesting(text: str) -> int:
    depth = deepest = 0
    for ch in text:
        if ch in _OPEN:
            depth += 1
            deepest = max(deepest, depth)
        elif ch in _CLOSE:
            depth = max(0, depth - 1)
    return deepest
