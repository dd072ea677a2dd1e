"""The lexical index: tokenised node documents as SQL tables, and BM25 over them."""

from afr.lexical.bm25 import bm25, has_lexical_index
from afr.lexical.index import LexicalReport, build_lexical_index
from afr.lexical.tokens import tokenize

__all__ = ["LexicalReport", "bm25", "build_lexical_index", "has_lexical_index", "tokenize"]
