"""Cutting the Cypher query out of an LLM reply.

Replies wrap the query in reasoning blocks, code fences, JSON or prose. ``extract_query``
finds the query: a fenced block with MATCH in it, else a JSON string value with MATCH, else
the text from the first MATCH on (then ``cut_prose_after`` trims what follows its RETURN).
"""

from __future__ import annotations

import json
import re

from afr.text import strip_reasoning

# Where an unfenced query starts: MATCH followed by a node or a path variable ("p = (").
# Prose like "to match the question" must not start it.
_MATCH_START = re.compile(
    r"\b(?:OPTIONAL\s++)?MATCH\s*+(?=\(|(?:[^\W\d]\w*+|`[^`\n]*+`)\s*+=\s*+\()",
    re.IGNORECASE)
_ANY_MATCH = re.compile(r"\bMATCH\b", re.IGNORECASE)
_RETURN = re.compile(r"\bRETURN\b", re.IGNORECASE)
_CONTINUES = re.compile(r"^\s*+(?:ORDER\s++BY|LIMIT|SKIP|ASC|DESC|,)", re.IGNORECASE)
_UNION = re.compile(r"^\s*+UNION\b", re.IGNORECASE)


def _fenced_blocks(text: str) -> list[str]:
    """Contents of ``` fences (an unclosed last fence runs to the end), language tag removed."""
    blocks, pos = [], 0
    while True:
        start = text.find("```", pos)
        if start < 0:
            return blocks
        start += 3
        end = text.find("```", start)
        body = text[start:] if end < 0 else text[start:end]
        first, newline, rest = body.partition("\n")
        tag = first.strip()
        if newline and re.fullmatch(r"[\w+#.-]*", tag) and not _ANY_MATCH.fullmatch(tag):
            body = rest
        blocks.append(body)
        if end < 0:
            return blocks
        pos = end + 3


def cut_prose_after(query: str) -> str:
    """Unfenced replies: the query ends with its RETURN line (plus ORDER BY/LIMIT lines)."""
    m = _RETURN.search(query)
    if not m:
        return query
    line_end = query.find("\n", m.end())
    if line_end < 0:
        return query
    kept = [query[:line_end]]
    if not re.sub(r"(?i)\bDISTINCT\b", "", query[m.end():line_end]).strip():
        # "RETURN" (or "RETURN DISTINCT") alone on its line: the items follow
        nxt = query.find("\n", line_end + 1)
        kept = [query[:nxt if nxt >= 0 else len(query)]]
        line_end = nxt if nxt >= 0 else len(query)
    for line in query[line_end + 1:].split("\n"):
        if _UNION.match(line):  # the UNION clause notes that the rest is not used
            return query
        if _CONTINUES.match(line) or (kept[-1].rstrip().endswith(",") and line.strip()):
            kept.append(line)
        else:
            break
    return "\n".join(kept)


def _from_json(text: str) -> str | None:
    """A reply in JSON ({"cypher": "MATCH …"}): the first string value with MATCH in it."""
    text = text.strip()
    if not text.startswith(("{", "[")):
        return None
    try:
        data = json.loads(text)
    except (ValueError, RecursionError):
        return None
    todo = [data]
    while todo:
        item = todo.pop(0)
        if isinstance(item, str) and _ANY_MATCH.search(item):
            return item
        if isinstance(item, dict):
            todo.extend(item.values())
        elif isinstance(item, list):
            todo.extend(item)
    return None


def has_query(text: str) -> bool:
    """Whether an LLM reply holds a query at all: the word MATCH outside its reasoning. A
    reply without one ("Sure! The answer is 42") is unusable, not a query to repair."""
    return bool(_ANY_MATCH.search(strip_reasoning(text, answer_in=_ANY_MATCH.search)))


def extract_query(text: str) -> tuple[str, bool]:
    """The Cypher inside an LLM reply, and whether prose may follow it.

    A fenced block with MATCH if there is one, else the text from the first MATCH on.
    """
    text = strip_reasoning(text, answer_in=_ANY_MATCH.search)
    with_match = [b for b in _fenced_blocks(text) if _ANY_MATCH.search(b)]
    if with_match:
        return _from_json(with_match[0]) or with_match[0], False
    in_json = _from_json(text)
    if in_json:
        return in_json, False
    m = _MATCH_START.search(text) or _ANY_MATCH.search(text)
    if not m:
        return text, False
    return text[m.start():], True
