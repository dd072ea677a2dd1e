"""The lexical index: tokenised node documents as SQL tables, and BM25 over them."""

from afr.lexical.bm25 import bm25, has_lexical_index
from afr.lexical.tokens import tokenize

__all__ = ["bm25", "has_lexical_index", "tokenize"]
