"""The embedder interface every implementation follows, and the one output check."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol

import numpy as np

from afr.errors import EmbeddingError


class Embedder(Protocol):
    """Texts → vectors. An embedder may also set ``cache_queries = False`` when it embeds
    a query faster than the store's query-embedding cache looks one up (the built-in
    hashing embedder); ``afr.vectors.search.query_vector`` then skips the cache. And it
    may set ``dense_weight``, how much its similarity counts against BM25 when the two
    are fused by reciprocal rank (``fusion_weight``), and ``hybrid_weight``, how much
    its min-max normalised similarity counts against BM25's in the hybrid list
    (``hybrid_fusion_weight``)."""

    model_id: str

    @property
    def dim(self) -> int: ...

    def embed(self, texts: Sequence[str]) -> np.ndarray: ...


DENSE_WEIGHT = 1.0  # a similarity that counts as much as BM25: full trust
# A semantic embedder's own weight, until 'afr index --calibrate' measures one: BM25 leads
# and the similarity reorders its tail (below about BM25's 18th, where one rank apart is
# worth less than 0.01 / 61 in reciprocal rank). Counted as much as BM25 (1),
# MiniLM's similarity lowered the hybrid list's MRR below BM25's on the WordNet subset and
# the synthetic PRIME and MAG sets (by 3.6 to 15.4 points); 0.01 kept it within 0.1 of
# BM25's on all of them, and 0.03 lost up to 1.7 (bench/real/EMBEDDERS.md).
SEMANTIC_DENSE_WEIGHT = 0.01
# The same for the hybrid list, fused linearly (each list's scores min-max normalised per
# question, BM25's weighing 1): MiniLM's 0.1 kept the list at or above BM25's on the
# synthetic MAG set, where its similarity is weakest (hit@1 1.0 against BM25's 6.5), and
# 0.3 fell below it (bench/real/EMBEDDERS.md).
SEMANTIC_HYBRID_WEIGHT = 0.1


def fusion_weight(embedder: Embedder) -> float:
    """The weight of the embedder's similarity beside BM25 (``dense_weight``; else
    ``SEMANTIC_DENSE_WEIGHT``)."""
    return float(getattr(embedder, "dense_weight", SEMANTIC_DENSE_WEIGHT))


def hybrid_fusion_weight(embedder: Embedder) -> float:
    """The weight of the embedder's normalised similarity beside BM25's in the hybrid list
    (``hybrid_weight``; else ``SEMANTIC_HYBRID_WEIGHT``)."""
    return float(getattr(embedder, "hybrid_weight", SEMANTIC_HYBRID_WEIGHT))


def known_dim(embedder: Embedder) -> int | None:
    """The embedder's dimension when knowing it costs nothing, else None: an embedder
    that would have to ask a service (a remote API) says so with a ``known_dim``
    attribute, which is None until it has seen a reply."""
    if hasattr(embedder, "known_dim"):
        return embedder.known_dim  # type: ignore[attr-defined]
    dim = getattr(embedder, "dim", None)
    return None if dim is None else int(dim)


def embed_texts(embedder: Embedder, texts: list[str]) -> np.ndarray:
    vectors = np.asarray(embedder.embed(texts), dtype=np.float32)
    if vectors.ndim != 2 or vectors.shape[0] != len(texts):
        raise EmbeddingError(
            f"{embedder.model_id} returned {vectors.shape} vectors for {len(texts)} texts"
        )
    return vectors
