"""BM25 in SQL over the lexical index (``sql/lexical/bm25.sql``), the same on every store.

Lucene's variant (as bm25s names it): ``idf = ln(1 + (N − df + 0.5)/(df + 0.5))``, term
weight ``tf / (tf + k1·(1 − b + b·len/avglen))``; N, df and avglen are those of the node
type(s) searched, also when only a candidate set is scored. A query term counts once.

One rule is afr's, not Lucene's: query terms whose idf is below ``min_idf`` ([bm25]) are
not scored at all (a term in nearly every document searched would otherwise make each of
them a scored row). With ``min_idf = 0`` the scores are bm25s's exactly; the tests compare
with bm25s given the query's other terms.
"""

from __future__ import annotations

from collections.abc import Sequence

from afr.lexical.memory import memory_postings
from afr.lexical.record import query_tokenizer
from afr.settings import BM25Settings
from afr.store.base import Store

SCORE_DIGITS = 9  # BM25 scores are compared at this precision


def bm25(store: Store, query: str | Sequence[str], *, params: BM25Settings = BM25Settings(),
         types: Sequence[str] | None = None, ids: Sequence[int] | None = None,
         k: int | None = None, also: Sequence[int] | None = None
         ) -> list[tuple[int, float]]:
    """(node id, BM25 score) best first, for a query text (tokenised here, as the index
    was: ``query_tokenizer``) or its terms; nodes without any query term are left out.
    ``ids`` restricts the scoring to those nodes; ``k`` cuts the list (None: all), except
    that the nodes of ``also`` are kept wherever they rank. ``params``: the [bm25]
    settings."""
    terms = query_tokenizer(store, params).tokens(query) if isinstance(query, str) \
        else list(query)
    terms = list(dict.fromkeys(terms))
    if not terms or (ids is not None and len(ids) == 0):
        return []
    mapped = memory_postings(store)
    if mapped is not None:
        rows = mapped.bm25(terms, params, types=types, ids=ids, k=k, also=also)
    else:
        rows = _bm25_sql(store, terms, params, types, ids, k, also)
    # Sums of floats differ in their last bits between databases; rounded, both stores
    # rank the same nodes the same way (ties by node id, as the SQL orders them).
    scored = [(int(r[0]), round(float(r[1]), SCORE_DIGITS)) for r in rows]
    return sorted(scored, key=lambda x: (-x[1], x[0]))


def _bm25_sql(store: Store, terms: list[str], params: BM25Settings,
              types: Sequence[str] | None, ids: Sequence[int] | None, k: int | None,
              also: Sequence[int] | None) -> list[tuple]:
    return store.run_tuples("lexical/bm25.sql", {
        "terms": terms, "types": list(types) if types else None,
        "ids": [int(i) for i in ids] if ids is not None else None,
        "k1": float(params.k1), "b": float(params.b), "k": int(k or 0),
        "min_idf": float(params.min_idf),
        "also": [int(i) for i in also] if also else None,
    }, types=bool(types), ids=ids is not None, limit=k is not None, also=bool(also))
