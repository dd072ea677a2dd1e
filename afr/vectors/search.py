"""Vector search in the store (steps 4, 6 and 7) and the query-embedding cache."""

from __future__ import annotations

import hashlib
from collections.abc import Sequence

import numpy as np

from afr.embed.base import Embedder, embed_texts
from afr.errors import EmbeddingError, StoreError
from afr.store.base import Store
from afr.vectors.exact import exact_search
from afr.vectors.memory import search_matrix

# Query embeddings wait in the store's runtime until saved (an ask writes nothing before its
# answers are found); at most this many per store: a process that never saves does not
# grow without end.
_PENDING_MAX = 10_000


def query_vector(store: Store, embedder: Embedder, text: str, *, cache: bool = True) -> np.ndarray:
    """Embed a question or search string, through the store's query-embedding cache
    (unless the embedder computes faster than the store looks up: ``cache_queries``).
    A new embedding is kept in memory until ``save_query_vectors``."""
    cache = cache and getattr(embedder, "cache_queries", True)
    text_hash = hashlib.sha256(text.encode("utf-8")).hexdigest()
    key = {"model_id": embedder.model_id, "text_hash": text_hash}
    if cache:
        runtime = store.runtime
        with runtime.lock:
            pending = runtime.pending_vectors.get((embedder.model_id, text_hash))
        if pending is not None:
            return pending[1]
        rows = store.run("vss/query_cache_get.sql", key)
        if rows:
            return np.asarray(rows[0].vec, dtype=np.float32)
    vec = embed_texts(embedder, [text])[0]
    if cache:
        with store.runtime.lock:
            waiting = store.runtime.pending_vectors
            if len(waiting) < _PENDING_MAX:
                waiting[(embedder.model_id, text_hash)] = (text, vec)
    return vec


def save_query_vectors(store: Store) -> None:
    """Write the query embeddings made since the last save to the store's cache, in one
    transaction; a store that cannot take them (disk full, read-only) just keeps none."""
    with store.runtime.lock:
        waiting, store.runtime.pending_vectors = store.runtime.pending_vectors, {}
    if not waiting:
        return
    try:
        with store.transaction():
            for (model_id, text_hash), (text, vec) in waiting.items():
                store.run("vss/query_cache_put.sql",
                          {"model_id": model_id, "text_hash": text_hash, "text": text,
                           "vec": [float(x) for x in vec]})
    except StoreError:
        pass  # only a cache


def search(
    store: Store,
    variant: str,
    vector: np.ndarray,
    k: int,
    *,
    types: Sequence[str] | None = None,
    ids: Sequence[int] | None = None,
    exclude: Sequence[int] | None = None,
) -> list[tuple[int, float]]:
    """Top-k (node id, cosine similarity), best first."""
    model = store.embedding_model(variant)
    if model is None:
        raise EmbeddingError(f"the store has no {variant!r} vectors yet; run 'afr embed'")
    dim = model[1]
    if vector.shape[-1] != dim:
        raise EmbeddingError(f"query vector has {vector.shape[-1]} dimensions, store has {dim}")
    if ids is not None and len(ids) == 0:
        return []
    want = int(k) + TIE_MARGIN  # the nodes that rounding may tie with the k-th too
    params = {
        # float32, as stored: PostgreSQL binds it as a pgvector value (binary), where a
        # float8[] cast to vector in each row's score cost 1.5 ms of a 7 ms search; DuckDB
        # casts it to FLOAT[dim] with the same values.
        "q": np.ascontiguousarray(vector, dtype=np.float32),
        "k": want,
        "types": list(types) if types else None,
        "ids": [int(i) for i in ids] if ids is not None else None,
        "exclude": [int(i) for i in exclude] if exclude else None,
    }
    matrix = search_matrix(store, variant, dim)
    if matrix is not None:
        return same_on_every_store(
            matrix.search(vector, want, types=types, ids=ids, exclude=exclude), k)
    if ids is None and not exact_search(store) and store.has_vector_index(variant):
        rows = _search_ann(store, variant, dim, params, types, exclude)
        if rows is not None:
            return same_on_every_store(rows, k)
    rows = store.run_tuples(
        "vss/topk.sql", params, variant=variant, dim=dim,
        types=bool(types), ids=ids is not None, exclude=bool(exclude),
    )
    return same_on_every_store([(int(r[0]), float(r[1])) for r in rows], k)


#: Similarities are rounded to this many decimals, and ties broken by node id: each engine
#: sums a dot product in its own order, so two nodes a few float32 steps apart would
#: otherwise change places from one store to another (PostgreSQL against DuckDB's matrix).
SCORE_DECIMALS = 6
#: Rows fetched past k, so that nodes tied with the k-th once rounded are all seen.
TIE_MARGIN = 8


def same_on_every_store(rows: list[tuple[int, float]], k: int) -> list[tuple[int, float]]:
    """The best ``k`` of ``rows`` (node id, similarity) by their rounded similarity, ties
    by node id: the order no engine's float arithmetic decides."""
    rounded = [(node, round(score, SCORE_DECIMALS)) for node, score in rows]
    rounded.sort(key=lambda row: (-row[1], row[0]))
    return rounded[:k]


# pgvector's HNSW search keeps at most ef_search candidates; a filtered
# search over-fetches by the inverse share of the wanted types, and is exact beyond that.
# Tuned with bench/bench_ann_recall.py at PRIME's size (130K nodes, hash vectors, HNSW
# m=16 ef_construction=64, pgvector 0.6): recall@20 against exact search with type
# filters 0.970 (names) / 0.993 (questions) at the former 2x, ef_search 40; 0.980 / 0.999
# at 4x, ef_search ≥ 400. Unfiltered searches reach only 0.82 there (0.58 before): use
# exact mode (afr.vectors.exact, `--exact`) when that matters. On real text (WordNet's
# short glosses, hash vectors) the same setting reaches only 0.74 / 0.75, with the
# per-type indexes (bench/real/SPEED.md).
ANN_MAX_FETCH = 400
ANN_OVERFETCH = 4.0
ANN_EF_MIN = 400  # hnsw.ef_search at least this, and at least ANN_EF_FACTOR x the fetch
ANN_EF_FACTOR = 2.0
ANN_EF_MAX = 1000  # pgvector's upper bound for hnsw.ef_search


def _search_ann(store: Store, variant: str, dim: int, params: dict,
                types: Sequence[str] | None, exclude: Sequence[int] | None
                ) -> list[tuple[int, float]] | None:
    """Top-k through the HNSW index, or None when the exact search should answer."""
    k = params["k"]
    counts = store.node_type_counts()
    total = sum(counts.values())
    if not total:
        return None
    code = store.type_vector_index(variant, types[0]) if types and len(types) == 1 else None
    if code is not None:
        return _search_type_ann(store, variant, dim, params, code, counts.get(types[0], 0),
                                exclude)
    share = sum(counts.get(t, 0) for t in types) / total if types else 1.0
    if share <= 0:
        return []
    fetch = int((k + len(exclude or ())) * (ANN_OVERFETCH if types else 1.0) / share) + 1
    if fetch > ANN_MAX_FETCH or fetch >= total:
        return None  # a small type: the exact search over its rows is cheap and complete
    rows = _ann_rows(store, variant, dim, params, fetch, types=bool(types), type_code=None,
                     exclude=exclude)
    if len(rows) < k:
        return None  # the filter left too few: answer exactly
    return [(int(r[0]), float(r[1])) for r in rows]


def _search_type_ann(store: Store, variant: str, dim: int, params: dict, code: int,
                     size: int, exclude: Sequence[int] | None
                     ) -> list[tuple[int, float]] | None:
    """Top-k within one node type through that type's own HNSW index: no over-fetch, as
    no filter runs after the index. None when the exact search should answer."""
    k = params["k"]
    fetch = k + len(exclude or ())
    if fetch > ANN_EF_MAX:
        return None
    rows = _ann_rows(store, variant, dim, params, fetch, types=False, type_code=code,
                     exclude=exclude)
    if len(rows) < k and not (len(rows) == size and not exclude):
        return None  # fewer than k, and not simply the whole (small) type: answer exactly
    return [(int(r[0]), float(r[1])) for r in rows]


def _ann_rows(store: Store, variant: str, dim: int, params: dict, fetch: int, *,
              types: bool, type_code: int | None, exclude: Sequence[int] | None) -> list:
    """The ``fetch`` nearest rows through an HNSW index (``type_code``: that type's own),
    with ``hnsw.ef_search`` sized for them."""
    with store.lock:  # the SET and the query it tunes, with no other thread in between
        return store.run_tuples("vss/topk_ann.sql", {**params, "fetch": fetch},
                                variant=variant, dim=dim, ef_search=_ef_search(fetch),
                                types=types, type_code=type_code, exclude=bool(exclude))


def _ef_search(fetch: int) -> int:
    return int(min(ANN_EF_MAX, max(ANN_EF_MIN, ANN_EF_FACTOR * fetch)))
