"""Vectors in the store: embed the SKB's documents (incrementally) and search them.

`afr embed` fills ``emb_doc`` and ``emb_doc_rel``; the pipeline's steps 4, 6 and 7 call
``search``. The store records which embedder made each variant; mixing models is refused,
because similarities between vectors of different models mean nothing.
"""

from __future__ import annotations

import hashlib
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Protocol

import numpy as np

from afr.docs import build_documents
from afr.errors import EmbeddingError, StoreError
from afr.progress import bar
from afr.store.base import VECTOR_VARIANTS, Store


class Embedder(Protocol):
    model_id: str

    @property
    def dim(self) -> int: ...

    def embed(self, texts: Sequence[str]) -> np.ndarray: ...


@dataclass
class EmbedReport:
    model_id: str
    dim: int
    embedded: dict[str, int] = field(default_factory=dict)
    total: dict[str, int] = field(default_factory=dict)
    seconds: float = 0.0


def check_model(store: Store, variant: str, embedder: Embedder) -> tuple[str, int] | None:
    recorded = store.embedding_model(variant)
    if recorded and recorded[0] != embedder.model_id:
        raise EmbeddingError(
            f"the store's {variant!r} vectors were made by {recorded[0]} (dim {recorded[1]}), "
            f"not {embedder.model_id}; use the same embedder, or 'afr embed --rebuild'"
        )
    return recorded


def embed_store(
    store: Store,
    embedder: Embedder,
    *,
    variants: Sequence[str] = VECTOR_VARIANTS,
    batch_size: int = 256,
    rebuild: bool = False,
    progress: bool = True,
) -> EmbedReport:
    """Embed every node lacking a vector; each batch commits, so a rerun resumes."""
    started = time.perf_counter()
    store.require_skb()
    report = EmbedReport(embedder.model_id, 0)
    for variant in variants:
        if variant not in VECTOR_VARIANTS:
            raise EmbeddingError(f"unknown document variant {variant!r}; use doc or doc_rel")
        if rebuild:
            with store.transaction():
                store.run("embed/drop_table.sql", {"variant": variant}, variant=variant)
        recorded = check_model(store, variant, embedder)
        missing: list[int] = []
        if recorded:
            missing = [int(r[0]) for r in store.run("embed/missing.sql", variant=variant)]
        else:
            missing = [int(r[0]) for r in store.run("embed/all_ids.sql")]
        done = 0
        two_hop_cache: dict = {}
        with bar(len(missing), f"embedding {variant}", enabled=progress, unit="node") as pbar:
            for start in range(0, len(missing), batch_size):
                ids = missing[start:start + batch_size]
                docs = build_documents(store, ids, variant, two_hop_cache=two_hop_cache)
                vectors = _embed_checked(embedder, [docs.get(i, "") for i in ids])
                dim = vectors.shape[1]
                with store.transaction():
                    if recorded is None:
                        store.run("embed/create_table.sql", variant=variant, dim=dim)
                        _record(store, variant, embedder.model_id, dim)
                        recorded = (embedder.model_id, dim)
                    elif recorded[1] != dim:
                        raise EmbeddingError(
                            f"{embedder.model_id} returned {dim}-d vectors but the store's "
                            f"{variant!r} vectors have {recorded[1]} dimensions"
                        )
                    store.write_vectors(variant, np.asarray(ids, dtype=np.int64), vectors)
                    _record(store, variant, embedder.model_id, dim)
                done += len(ids)
                pbar.update(len(ids))
        if recorded:
            store.build_vector_index(variant)
            report.dim = recorded[1]
        report.embedded[variant] = done
        total, have = store.run("embed/count.sql", variant=variant)[0] if recorded else (0, 0)
        report.total[variant] = int(have)
    report.seconds = time.perf_counter() - started
    return report


def _record(store: Store, variant: str, model_id: str, dim: int) -> None:
    store.run("embed/set_model.sql", {"variant": variant, "model_id": model_id, "dim": dim},
              variant=variant)


def _embed_checked(embedder: Embedder, texts: list[str]) -> np.ndarray:
    vectors = np.asarray(embedder.embed(texts), dtype=np.float32)
    if vectors.ndim != 2 or vectors.shape[0] != len(texts):
        raise EmbeddingError(
            f"{embedder.model_id} returned {vectors.shape} vectors for {len(texts)} texts"
        )
    return vectors


def query_vector(store: Store, embedder: Embedder, text: str, *, cache: bool = True) -> np.ndarray:
    """Embed a question or search string, through the store's query-embedding cache."""
    text_hash = hashlib.sha256(text.encode("utf-8")).hexdigest()
    key = {"model_id": embedder.model_id, "text_hash": text_hash}
    if cache:
        rows = store.run("vss/query_cache_get.sql", key)
        if rows:
            return np.asarray(rows[0][0], dtype=np.float32)
    vec = _embed_checked(embedder, [text])[0]
    if cache:
        try:
            with store.transaction():
                store.run("vss/query_cache_put.sql",
                          {**key, "text": text, "vec": [float(x) for x in vec]})
        except StoreError:
            pass  # only a cache: a store that cannot take it (disk full) still answers
    return vec


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
    params = {
        "q": [float(x) for x in vector],
        "k": int(k),
        "types": list(types) if types else None,
        "ids": [int(i) for i in ids] if ids is not None else None,
        "exclude": [int(i) for i in exclude] if exclude else None,
    }
    matrices = getattr(store, "search_matrices", None)
    if matrices is not None:
        matrix = matrices.get(variant, dim)
        if matrix is not None:
            return matrix.search(vector, k, types=types, ids=ids, exclude=exclude)
    if ids is None and store.dialect.name == "postgres" and store.has_vector_index(variant):
        rows = _search_ann(store, variant, dim, params, types, exclude)
        if rows is not None:
            return rows
    rows = store.run(
        "vss/topk.sql", params, variant=variant, dim=dim,
        types=bool(types), ids=ids is not None, exclude=bool(exclude),
    )
    return [(int(r[0]), float(r[1])) for r in rows]


# pgvector's HNSW search keeps at most ef_search candidates; a filtered
# search over-fetches by the inverse share of the wanted types, and is exact beyond that.
ANN_MAX_FETCH = 400
ANN_OVERFETCH = 2.0


def _search_ann(store: Store, variant: str, dim: int, params: dict,
                types: Sequence[str] | None, exclude: Sequence[int] | None
                ) -> list[tuple[int, float]] | None:
    """Top-k through the HNSW index, or None when the exact search should answer."""
    k = params["k"]
    counts = store.node_type_counts()
    total = sum(counts.values())
    if not total:
        return None
    share = sum(counts.get(t, 0) for t in types) / total if types else 1.0
    if share <= 0:
        return []
    fetch = int((k + len(exclude or ())) * (ANN_OVERFETCH if types else 1.0) / share) + 1
    if fetch > ANN_MAX_FETCH or fetch >= total:
        return None  # a small type: the exact search over its rows is cheap and complete
    with store.lock:  # the SET and the query it tunes, with no other thread in between
        rows = store.run("vss/topk_ann.pg.sql", {**params, "fetch": fetch}, variant=variant,
                         dim=dim, ef_search=max(40, fetch), types=bool(types),
                         exclude=bool(exclude))
    if len(rows) < k:
        return None  # the filter left too few: answer exactly
    return [(int(r[0]), float(r[1])) for r in rows]
