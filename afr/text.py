"""Text from users and LLMs, made safe to store and embed.

Two kinds of character break a run far from where they came in: NUL, which PostgreSQL
text cannot hold, and lone surrogates (what undecodable bytes on a command line become
in Python), which cannot be encoded as UTF-8 at all. Both are replaced at the door —
questions, Cypher, LLM replies — so every later step sees ordinary text.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Callable, Iterable

_NUL = re.compile("\x00")
_SURROGATE = re.compile("[\ud800-\udfff]")


def clean_text(text: str) -> str:
    if not isinstance(text, str):
        text = str(text)
    text = _NUL.sub("", text)
    return _SURROGATE.sub("\ufffd", text)


_THINK_TAGS = ("think", "thinking", "reasoning", "reflection")
_HARMONY_FINAL = "<|channel|>final<|message|>"


def strip_reasoning(text: str, *, answer_in: Callable[[str], object] = str.strip) -> str:
    """A model's reply without its reasoning: <think>…</think> blocks (and <thinking>,
    <reasoning>, <reflection>), a closing tag whose opening one the server cut off, and
    gpt-oss "harmony" transcripts (only the final channel is the answer).

    A reply cut off while still reasoning keeps that unfinished reasoning only when no part
    outside it holds an answer (``answer_in`` is true of a part that does): then the
    reasoning is all there is to read.
    """
    if _HARMONY_FINAL in text:
        text = text[text.rfind(_HARMONY_FINAL) + len(_HARMONY_FINAL):]
        for marker in ("<|end|>", "<|return|>", "<|call|>"):
            text = text.replace(marker, " ")
    low = text.lower()
    for tag in _THINK_TAGS:
        opening, closing = f"<{tag}>", f"</{tag}>"
        if closing not in low and opening not in low:
            continue
        last_close = low.rfind(closing)
        first_open = low.find(opening)
        if last_close >= 0 and (first_open < 0 or first_open > last_close):
            text, low = text[last_close + len(closing):], low[last_close + len(closing):]
            continue
        pieces, pos = [], 0
        while True:
            start = low.find(opening, pos)
            if start < 0:
                pieces.append(text[pos:])
                break
            pieces.append(text[pos:start])
            end = low.find(closing, start)
            if end < 0:  # cut off while still reasoning
                if not any(answer_in(p) for p in pieces):
                    pieces.append(text[start + len(opening):])
                break
            pos = end + len(closing)
        text = "".join(pieces)
        low = text.lower()
    return text


def fold_name(name: str) -> str:
    """A name as the name index keys it: trimmed, inner whitespace collapsed, accents
    removed (NFKD, combining marks dropped) and case-folded — "  Zoë  Müller" and
    "zoe muller" are the same key. One definition, used when the index is built and when
    it is searched, so both stores agree."""
    text = unicodedata.normalize("NFKD", clean_text(name))
    text = "".join(ch for ch in text if not unicodedata.combining(ch))
    return " ".join(text.casefold().split())


def gist(reply: str, chars: int = 60) -> str:
    """The start of an LLM reply for a one-line note: whitespace folded, quoted, cut."""
    text = " ".join(reply.split())
    return repr(text[:chars] + ("…" if len(text) > chars else ""))


def without_names(text: str, names: Iterable[str]) -> str:
    """``text`` with each of ``names`` (longest first, any case) replaced by a space: what
    a question says besides the names it was given."""
    for name in sorted({n for n in names if n.strip()}, key=len, reverse=True):
        text = re.sub(re.escape(name), " ", text, flags=re.IGNORECASE)
    return text
