"""Text from users and LLMs, made safe to store and embed.

Two kinds of character break a run far from where they came in: NUL, which PostgreSQL
text cannot hold, and lone surrogates (what undecodable bytes on a command line become
in Python), which cannot be encoded as UTF-8 at all. Both are replaced at the door —
questions, Cypher, LLM replies — so every later step sees ordinary text.
"""

from __future__ import annotations

import re

_NUL = re.compile("\x00")
_SURROGATE = re.compile("[\ud800-\udfff]")


def clean_text(text: str) -> str:
    if not isinstance(text, str):
        text = str(text)
    text = _NUL.sub("", text)
    return _SURROGATE.sub("\ufffd", text)
