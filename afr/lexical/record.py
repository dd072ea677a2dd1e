"""The tokeniser a store's lexical index was built with, recorded beside it (afr_meta), and
the one rule that keeps queries and index alike: a query is tokenised by the tokeniser the
settings name, and only when that is the index's own.

An index built with another tokeniser is refused, not searched: its terms are another
stemmer's stems (or words), and a query's would match them only by chance.
"""

from __future__ import annotations

from afr.lexical.tokens import Tokenizer, TokenizerError
from afr.settings import BM25Settings
from afr.store.base import Store

TOKENIZER_KEY = "lexical_tokenizer"


def has_lexical_index(store: Store) -> bool:
    """Whether ``afr index`` has indexed anything in this store (read once per store
    object)."""
    def read() -> bool:
        if not store.table_exists("lex_stats"):
            return False
        return bool(store.run("lexical/has_index.sql"))
    return store.fact("lexical_index", read)


def index_tokenizer(store: Store) -> Tokenizer | None:
    """The tokeniser the lexical index was built with; None when none is recorded (no
    index, or one built by an afr that did not record it)."""
    text = store.meta_fact(TOKENIZER_KEY)
    return Tokenizer.from_record(text) if text else None


def query_tokenizer(store: Store, params: BM25Settings) -> Tokenizer:
    """The tokeniser of queries under the [bm25] settings ``params``; refused when the
    store's lexical index was built with another."""
    wanted = Tokenizer.of(params)
    if has_lexical_index(store):
        built = index_tokenizer(store)
        if built != wanted:
            raise TokenizerError(mismatch(built, wanted))
    return wanted


def mismatch(built: Tokenizer | None, wanted: Tokenizer) -> str:
    """Why an index cannot serve (or be topped up under) the settings, and what to do."""
    if built is None:
        return ("the lexical index was built by an older afr, which did not record its "
                f"tokeniser; the settings ask for {wanted.describe()}: rebuild it with "
                "'afr index --rebuild'")
    if built.version != wanted.version:
        return (f"the lexical index was built by an afr with another tokeniser "
                f"(v{built.version}, this afr's is v{wanted.version}): rebuild it with "
                "'afr index --rebuild'")
    return (f"the lexical index was built with {built.describe()}; the settings ask for "
            f"{wanted.describe()}: rebuild it with 'afr index --rebuild', or set [bm25] "
            f"stemmer = \"{built.stemmer}\" and stopwords = {str(built.stopwords).lower()}")
