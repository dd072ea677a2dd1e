"""The plain lists every method builds on: vector search, BM25 and their fusion over the
answer types (the methods ``vss``, ``bm25`` and ``hybrid``, AF's step 7 and SAGE's
seeds)."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from afr.lexical import bm25
from afr.retrieval.candidate import Candidate
from afr.retrieval.fusion import Ranked, fuse
from afr.retrieval.weights import dense_of, hybrid_dense_of
from afr.settings import BM25Settings, RankingSettings
from afr.store.base import Store
from afr.store.skb import SkbSchema
from afr.vectors.search import search

POOL = 100  # depth of the vector and BM25 lists fused over the target type
PLAIN = ("vss", "bm25", "hybrid")


def answer_types(target_type: str | None, schema: SkbSchema) -> list[str]:
    """The types answers are searched among: the target type when known, else every
    candidate type of the SKB."""
    return [target_type] if target_type else list(schema.candidate_types)


def vss_strand(store: Store, qvec: np.ndarray, target_types: Sequence[str] | None, k: int
               ) -> list[tuple[int, float]]:
    """Plain vector search over the candidate nodes of the target type(s)."""
    return search(store, "doc_rel", qvec, k, types=list(target_types) if target_types else None)


def plain_list(store: Store, qvec: np.ndarray, question: str, types: Sequence[str] | None,
               k: int, method: str, ranking: RankingSettings, params: BM25Settings
               ) -> list[Candidate]:
    """The plain methods: ``vss`` (vector search over the target type, ``doc_rel``),
    ``bm25`` (BM25 over it) and ``hybrid`` (their fusion)."""
    if method == "vss":
        return [Candidate(n, "vss", None, s) for n, s in vss_strand(store, qvec, types, k)]
    lexical = bm25(store, question, params=params, types=types, k=max(POOL, k))
    if method == "bm25":
        return [Candidate(n, "bm25", None, None, {"scores": {"bm25": s}})
                for n, s in lexical[:k]]
    vss = vss_strand(store, qvec, types, max(POOL, k))
    return fuse_hybrid(vss, lexical, k, ranking, types)


def fuse_hybrid(vss: list[tuple[int, float]], lexical: list[tuple[int, float]], k: int,
                ranking: RankingSettings, types: Sequence[str] | None) -> list[Candidate]:
    """The ``hybrid`` list: vector search and BM25 fused (``hybrid_fusion``)."""
    dense, lex = dict(vss), dict(lexical)
    return [Candidate(n, "hybrid", None, dense.get(n),
                      {"scores": {"fused": s, "dense": dense.get(n), "bm25": lex.get(n)}})
            for n, s in hybrid_fusion(vss, lexical, ranking, types)[:k]]


def hybrid_fusion(vss: Ranked, lexical: Ranked, ranking: RankingSettings,
                  types: Sequence[str] | None) -> list[tuple[int, float]]:
    """Vector search and BM25 over one answer type (``types``) fused linearly, each list's
    scores min-max normalised, the vectors weighing ``ranking.hybrid_dense`` beside BM25's
    ``ranking.lexical``. Scores, not ranks: where one list barely separates two nodes the
    other decides, where it separates them clearly it holds, which ranks cannot tell. With
    the hash embedder no weight of reciprocal rank fusion kept the list at or above both
    on WordNet dev and test and the three synthetic sets; linear fusion at 0.3 did
    (bench/real/EMBEDDERS.md). Over several types (None: every candidate type) the two are
    fused by reciprocal rank with ``ranking.dense``, as steps 6–7 fuse them: there a word
    and its senses share their text, the similarity cannot tell them apart, and at 0.3 it
    took WordNet dev's offline hybrid list from BM25's hit@1 42.6 to 34.0."""
    if types is not None and len(types) == 1:
        return fuse([(vss, hybrid_dense_of(ranking)), (lexical, ranking.lexical)],
                    method="linear")
    return fuse([(vss, dense_of(ranking)), (lexical, ranking.lexical)],
                method=ranking.fusion, rrf_k=ranking.rrf_k)
