"""The lexical index: tokenised node documents as SQL tables, and BM25 over them."""

from afr.lexical.bm25 import bm25, has_lexical_index
from afr.lexical.index import LexicalReport, LexicalState, build_lexical_index, lexical_state
from afr.lexical.tokens import tokenize

__all__ = ["LexicalReport", "LexicalState", "bm25", "build_lexical_index", "has_lexical_index",
           "lexical_state", "tokenize"]
