"""The lexical index: tokenised node documents as SQL tables, and BM25 over them."""

from afr.lexical.bm25 import bm25
from afr.lexical.index import (
    LexicalReport,
    LexicalState,
    build_lexical_index,
    lexical_state,
    map_postings,
)
from afr.lexical.record import has_lexical_index, index_tokenizer, query_tokenizer
from afr.lexical.tokens import Tokenizer, TokenizerError, tokenize

__all__ = ["LexicalReport", "LexicalState", "Tokenizer", "TokenizerError", "bm25",
           "build_lexical_index", "has_lexical_index", "index_tokenizer", "lexical_state",
           "map_postings", "query_tokenizer", "tokenize"]
