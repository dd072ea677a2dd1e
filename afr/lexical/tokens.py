"""Tokenisation for the lexical index: one tokeniser for documents and queries alike.

Lowercase (Unicode case folding), Unicode word tokens (``\\w+``: letters, digits and
underscore of any script), a short English stopword list dropped (optional), then each
word reduced to its Snowball stem (optional; PyStemmer's algorithms): "cycling" and
"cycles" both become "cycl", so a question and a document match across inflections.
Stopwords are dropped before stemming, on the words as written.

The index records the tokeniser it was built with (``Tokenizer.record``) and a query is
tokenised the same way: a stem only matches a stem made by the same stemmer.
"""

from __future__ import annotations

import json
import re
import threading
from dataclasses import dataclass
from typing import Any

from afr.errors import AfrError
from afr.settings import BM25Settings

_WORD = re.compile(r"\w+", re.UNICODE)

# The word pattern, case folding and stopword list below: a change to any of them makes
# the indexes built before unusable for queries tokenised after, so it bumps this.
TOKENIZER_VERSION = 1
NO_STEMMER = "none"

# Function words that carry no evidence of relevance (and single letters left by
# possessives: "alzheimer's" → "alzheimer", "s").
STOPWORDS = frozenset("""
a an and are as at be but by for from has have he her his i if in into is it its
me my no not of on or our s she so such t than that the their them then there these they
this those to was we were what when where which who whom whose why will with you your
do does did can could would should may might been being also any all about over under
""".split())  # noqa: SIM905 - a word list reads best as text

# PyStemmer's stemmers keep per-call state: one per thread and algorithm (BM25 of a
# question's constants runs on several threads at once).
_local = threading.local()


class TokenizerError(AfrError):
    """A stemmer that cannot be made, or a record of a tokeniser afr cannot read."""


@dataclass(frozen=True)
class Tokenizer:
    """How text becomes index terms: the stemmer (a PyStemmer algorithm, or "none") and
    whether afr's English stopwords are dropped."""

    stemmer: str
    stopwords: bool
    version: int = TOKENIZER_VERSION

    @classmethod
    def of(cls, params: BM25Settings) -> Tokenizer:
        """The tokeniser the [bm25] settings ask for."""
        return cls(stemmer=params.stemmer, stopwords=params.stopwords)

    def tokens(self, text: str | None) -> list[str]:
        """The terms of ``text`` in order, duplicates kept (documents count them)."""
        if not text:
            return []
        words = _WORD.findall(text.casefold())
        if self.stopwords:
            words = [w for w in words if w not in STOPWORDS]
        if self.stemmer == NO_STEMMER or not words:
            return words
        return _stemmer(self.stemmer).stemWords(words)

    def require(self) -> None:
        """Fail (``TokenizerError``) now when the stemmer cannot be made."""
        if self.stemmer != NO_STEMMER:
            _stemmer(self.stemmer)

    def record(self) -> str:
        """What the index stores (afr_meta ``lexical_tokenizer``)."""
        return json.dumps({"version": self.version, "stemmer": self.stemmer,
                           "stopwords": self.stopwords}, sort_keys=True)

    @classmethod
    def from_record(cls, text: str) -> Tokenizer:
        try:
            data: dict[str, Any] = json.loads(text)
            return cls(stemmer=str(data["stemmer"]), stopwords=bool(data["stopwords"]),
                       version=int(data["version"]))
        except (ValueError, KeyError, TypeError) as e:
            raise TokenizerError(f"the lexical index's tokeniser record cannot be read "
                                 f"({text!r}): rebuild it with 'afr index --rebuild'") from e

    def describe(self) -> str:
        """For people: "Snowball english stems, stopwords dropped"."""
        stems = "words unstemmed" if self.stemmer == NO_STEMMER \
            else f"Snowball {self.stemmer} stems"
        stops = "stopwords dropped" if self.stopwords else "stopwords kept"
        version = "" if self.version == TOKENIZER_VERSION else f", tokeniser v{self.version}"
        return f"{stems}, {stops}{version}"


def _stemmer(algorithm: str) -> Any:
    stemmers = _local.__dict__.setdefault("stemmers", {})
    stemmer = stemmers.get(algorithm)
    if stemmer is None:
        try:
            import Stemmer  # PyStemmer
        except ImportError as e:
            raise TokenizerError(
                f"the {algorithm} stemmer needs PyStemmer ('pip install PyStemmer'), or set "
                "[bm25] stemmer = \"none\"") from e
        try:
            stemmer = Stemmer.Stemmer(algorithm)
        except (KeyError, ValueError) as e:
            raise TokenizerError(f"PyStemmer has no stemmer {algorithm!r}") from e
        stemmers[algorithm] = stemmer
    return stemmer


def tokenize(text: str | None, params: BM25Settings = BM25Settings()) -> list[str]:
    """The terms of ``text`` under the [bm25] settings ``params``."""
    return Tokenizer.of(params).tokens(text)
