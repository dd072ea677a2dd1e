"""Building the lexical index (`afr index`): postings of the ``doc`` node documents.

Incremental: only nodes without a ``lex_docs`` row are tokenised; each batch commits, so a
rerun resumes. Document frequencies and per-type statistics are recomputed in SQL once at
the end (``lexical/statistics.sql``); a run that stopped before that leaves the store
marked, and the next run recomputes them even when no node is missing.

The first batch records the tokeniser (``afr.lexical.record``); topping up an index built
with another tokeniser is refused (its postings would mix two kinds of terms), and
``rebuild`` empties the index and records the settings' tokeniser first.
"""

from __future__ import annotations

import time
from collections import Counter
from dataclasses import dataclass

from afr.errors import StoreError
from afr.lexical import memory
from afr.lexical.record import TOKENIZER_KEY, index_tokenizer, mismatch
from afr.lexical.tokens import Tokenizer, TokenizerError
from afr.progress import bar
from afr.settings import BM25Settings
from afr.store.base import Store
from afr.vectors.documents import build_documents

_STALE = "lexical_statistics_stale"


@dataclass
class LexicalReport:
    indexed: int = 0  # nodes tokenised by this run
    total: int = 0  # nodes in the index now
    nodes: int = 0  # nodes in the store
    postings: int = 0
    terms: int = 0
    seconds: float = 0.0
    tokenizer: str = ""  # how its terms were made (``Tokenizer.describe``)
    rebuilt: bool = False  # the index was emptied first


def build_lexical_index(store: Store, *, params: BM25Settings = BM25Settings(),
                        batch_size: int | None = None, rebuild: bool = False,
                        progress: bool | None = None) -> LexicalReport:
    started = time.perf_counter()
    store.require_skb()
    store.require_initialised()  # an older store gets the lexical tables first
    tokenizer = Tokenizer.of(params)
    tokenizer.require()  # a stemmer that cannot be made fails before any write
    _claim(store, tokenizer, rebuild)
    missing = [int(r[0]) for r in store.run("lexical/missing.sql")]
    batch_size = batch_size or store.document_batch
    report = LexicalReport(tokenizer=tokenizer.describe(), rebuilt=rebuild)
    with bar(len(missing), "indexing terms", enabled=progress, unit="node") as pbar:
        for start in range(0, len(missing), batch_size):
            ids = missing[start:start + batch_size]
            _index_batch(store, ids, tokenizer)
            report.indexed += len(ids)
            pbar.update(len(ids))
    if report.indexed or store.get_meta(_STALE) == "true":
        def statistics() -> None:
            store.run("lexical/statistics.sql")
            store.run("lexical/order.sql")
            store.set_meta_value(_STALE, "false")
            memory.new_version(store)
        store.run_in_transaction(statistics)
        store.forget_derived_facts()
    map_postings(store)
    row = store.run("lexical/counts.sql")[0]
    report.total, report.nodes = int(row.indexed), int(row.nodes)
    report.postings, report.terms = int(row.postings), int(row.terms)
    report.seconds = time.perf_counter() - started
    return report


def map_postings(store: Store) -> bool:
    """Write the postings file BM25 reads on stores that map it (``afr.lexical.memory``)
    for the index as it now is, when missing or stale; an index built before afr wrote
    such files gets its version here. False when BM25 stays in SQL: another store kind,
    no index, an unfinished build, a store that cannot be written."""
    if not store.maps_postings or store.get_meta(_STALE) == "true":
        return False
    if store.meta_fact(memory.VERSION_KEY) is None:
        if not store.run("lexical/any_doc.sql"):
            return False
        try:
            store.run_in_transaction(lambda: memory.new_version(store), retries=0)
        except StoreError:
            return False  # a read-only store
    return memory.memory_postings(store) is not None or memory.write_postings_file(store)


def _claim(store: Store, tokenizer: Tokenizer, rebuild: bool) -> None:
    """Make the index the tokeniser's: record it on an empty (or emptied) index; refuse
    an index that holds another's terms."""
    if rebuild:
        def clear() -> None:
            store.run("lexical/clear.sql")
            store.set_meta_value(TOKENIZER_KEY, tokenizer.record())
            store.set_meta_value(_STALE, "true")
            memory.drop_version(store)
        store.run_in_transaction(clear, retries=0)
        return
    if not store.run("lexical/any_doc.sql"):
        store.run_in_transaction(lambda: store.set_meta_value(TOKENIZER_KEY, tokenizer.record()),
                                 retries=0)
        return
    built = index_tokenizer(store)
    if built != tokenizer:
        raise TokenizerError(mismatch(built, tokenizer))


def _index_batch(store: Store, ids: list[int], tokenizer: Tokenizer) -> None:
    """Tokenise the nodes ``ids`` and write their postings and lengths (one commit)."""
    docs = build_documents(store, ids, "doc")
    terms: list[str] = []
    term_nodes: list[int] = []
    tfs: list[int] = []
    lens: list[int] = []
    for node_id in ids:
        tokens = tokenizer.tokens(docs.get(node_id, ""))
        lens.append(len(tokens))
        for term, tf in Counter(tokens).items():
            terms.append(term)
            term_nodes.append(node_id)
            tfs.append(tf)

    def write() -> None:
        store.run("lexical/insert.sql", {"terms": terms, "term_nodes": term_nodes,
                                         "tfs": tfs, "ids": ids, "lens": lens})
        store.set_meta_value(_STALE, "true")
        memory.drop_version(store)

    store.run_in_transaction(write, retries=0)
@dataclass(frozen=True)
class LexicalState:
    """What the lexical index holds (``afr info``)."""

    indexed: int  # nodes in the index
    nodes: int  # nodes in the store
    postings: int
    terms: int
    stale: bool  # a run stopped before recomputing the statistics: 'afr index' again
    # the postings file BM25 reads (``afr.lexical.memory``), when current; None: BM25
    # runs in SQL
    postings_file: str | None = None
    maps_postings: bool = False  # the store kind reads BM25 from such a file


def lexical_state(store: Store) -> LexicalState | None:
    """The lexical index's counts, or None when the store has no lexical tables."""
    if not store.table_exists("lex_docs"):
        return None
    row = store.run("lexical/counts.sql")[0]
    mapped = memory.memory_postings(store) is not None
    return LexicalState(int(row.indexed), int(row.nodes), int(row.postings), int(row.terms),
                        store.meta_fact(_STALE) == "true",
                        str(memory.postings_path(store)) if mapped else None,
                        store.maps_postings)
