"""Tokenisation for the lexical index: one function for documents and queries alike.

Lowercase (Unicode case folding), Unicode word tokens (``\\w+``: letters, digits and
underscore of any script), then a short English stopword list is dropped (optional). No
stemming: what a question says and what a document says must match as written, and the
same tokens feed afr's SQL BM25 and the reference implementation the tests compare it with.
"""

from __future__ import annotations

import re

_WORD = re.compile(r"\w+", re.UNICODE)

# Function words that carry no evidence of relevance (and single letters left by
# possessives: "alzheimer's" → "alzheimer", "s").
STOPWORDS = frozenset("""
a an and are as at be but by for from has have he her his i if in into is it its
me my no not of on or our s she so such t than that the their them then there these they
this those to was we were what when where which who whom whose why will with you your
do does did can could would should may might been being also any all about over under
""".split())  # noqa: SIM905 - a word list reads best as text


def tokenize(text: str | None, *, stopwords: bool = True) -> list[str]:
    """The tokens of ``text`` in order, duplicates kept (documents count them)."""
    if not text:
        return []
    tokens = _WORD.findall(text.casefold())
    if stopwords:
        return [t for t in tokens if t not in STOPWORDS]
    return tokens
