"""An in-memory search matrix for a DuckDB store that answers many searches.

DuckDB has no approximate index here (its HNSW extension is a download), and a scan with
``array_cosine_distance`` costs tens of milliseconds per search at PRIME's size. A process
that searches many times (``afr eval``, benchmarks, a long-lived Python API user) loads each
variant's vectors once into a normalised float32 matrix and answers exact searches with one
matrix-vector product. One-shot commands keep the SQL scan: loading costs more than a few
searches. PostgreSQL has its HNSW index and does not use this.

The matrices live here, in a registry keyed by store object (the store knows nothing of
them); ``afr.vectors.index`` drops them when it writes vectors.
"""

from __future__ import annotations

import os
import threading
import weakref
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from afr.store.base import Store
from afr.vectors.exact import exact_search

DEFAULT_BUDGET_MB = 2048  # per variant; above it the store is searched with SQL


@dataclass
class SearchMatrix:
    ids: np.ndarray  # node ids, ascending
    vectors: np.ndarray  # (n, dim) float32, unit rows
    rows_of_type: dict[str, np.ndarray]  # node type → row positions

    @classmethod
    def load(cls, store: Store, variant: str) -> SearchMatrix:
        (stmt,) = store.sql("embed/all_vectors.sql", variant=variant)
        cols = store.query_numpy(stmt)
        ids = np.asarray(cols["node_id"], dtype=np.int64)
        if len(ids):
            vectors = np.stack(cols["vec"]).astype(np.float32, copy=False)
        else:
            vectors = np.zeros((0, 0), dtype=np.float32)
        norms = np.linalg.norm(vectors, axis=1, keepdims=True)
        vectors /= np.where(norms > 0, norms, 1.0)
        types = np.asarray(cols["type"], dtype=object)
        rows_of_type = {str(t): np.nonzero(types == t)[0] for t in set(types.tolist())}
        return cls(ids, vectors, rows_of_type)

    def search(self, vector: np.ndarray, k: int, *, types: Sequence[str] | None = None,
               ids: Sequence[int] | None = None, exclude: Sequence[int] | None = None
               ) -> list[tuple[int, float]]:
        """Top-k (node id, cosine similarity), ties broken by node id, as the SQL does."""
        norm = float(np.linalg.norm(vector))
        query = np.asarray(vector, dtype=np.float32) / (norm if norm else 1.0)
        pos: np.ndarray | None = None
        if ids is not None:
            if not len(self.ids):
                return []
            wanted = np.unique(np.asarray(list(ids), dtype=np.int64))
            at = np.minimum(np.searchsorted(self.ids, wanted), len(self.ids) - 1)
            pos = at[self.ids[at] == wanted]
        if types:
            parts = [self.rows_of_type[t] for t in types if t in self.rows_of_type]
            of_type = np.sort(np.concatenate(parts)) if parts else np.empty(0, np.int64)
            pos = of_type if pos is None else pos[np.isin(pos, of_type)]
        mat = self.vectors if pos is None else self.vectors[pos]
        node_ids = self.ids if pos is None else self.ids[pos]
        if exclude:
            keep = ~np.isin(node_ids, np.asarray(list(exclude), dtype=np.int64))
            mat, node_ids = mat[keep], node_ids[keep]
        if not len(node_ids) or k <= 0:
            return []
        scores = mat @ query
        if k < len(scores):
            # Everything at least as good as the k-th score, so ties at the cut are all seen.
            kth = np.partition(scores, len(scores) - k)[len(scores) - k]
            cand = np.nonzero(scores >= kth)[0]
        else:
            cand = np.arange(len(scores))
        order = np.lexsort((node_ids[cand], -scores[cand]))[:k]
        return [(int(node_ids[cand[i]]), float(scores[cand[i]])) for i in order]


class SearchMatrices:
    """The matrices of one store, loaded on first use; dropped when its vectors change."""

    def __init__(self, store: Store, budget_mb: float | None = None) -> None:
        # A weak reference: the registry's entry lives as long as the store, and a strong
        # one would keep its connection (and DuckDB's file lock) open after it is dropped.
        self.store = weakref.proxy(store)
        env = os.environ.get("AFR_MEMORY_VECTORS_MB")
        self.budget_mb = budget_mb if budget_mb is not None else (
            float(env) if env else DEFAULT_BUDGET_MB)
        self._matrices: dict[str, SearchMatrix | None] = {}
        self._lock = threading.Lock()

    def get(self, variant: str, dim: int) -> SearchMatrix | None:
        with self._lock:
            if variant not in self._matrices:
                total = int(self.store.run("embed/count.sql", variant=variant)[0][1])
                fits = total * dim * 4 / 2**20 <= self.budget_mb
                self._matrices[variant] = SearchMatrix.load(self.store, variant) if fits \
                    else None
            return self._matrices[variant]

    def invalidate(self) -> None:
        with self._lock:
            self._matrices.clear()


# store → its matrices, for the stores that use them (use_memory_vectors)
_REGISTRY: weakref.WeakKeyDictionary[Store, SearchMatrices] = weakref.WeakKeyDictionary()


def use_memory_vectors(store: Store, budget_mb: float | None = None) -> None:
    """Let ``store`` answer its vector searches from in-memory matrices (stores without
    approximate indexes, DuckDB, and stores in exact mode: ``afr.vectors.exact``)."""
    if exact_search(store) and store not in _REGISTRY:
        _REGISTRY[store] = SearchMatrices(store, budget_mb)


def stop_memory_vectors(store: Store) -> None:
    """Search ``store`` with SQL again, and free its matrices."""
    _REGISTRY.pop(store, None)


def memory_vectors(store: Store) -> SearchMatrices | None:
    """The store's matrices, when it uses them."""
    return _REGISTRY.get(store)


def search_matrix(store: Store, variant: str, dim: int) -> SearchMatrix | None:
    """The in-memory matrix that answers ``store``'s searches of ``variant``, if any."""
    matrices = _REGISTRY.get(store)
    return matrices.get(variant, dim) if matrices is not None else None


def vectors_changed(store: Store) -> None:
    """The store's vectors were written or dropped: its matrices are stale."""
    matrices = _REGISTRY.get(store)
    if matrices is not None:
        matrices.invalidate()
