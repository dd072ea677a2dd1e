"""In-memory search matrices for a DuckDB store, and their memory-mapped files.

DuckDB has no approximate index here (its HNSW extension is a download), and a scan with
``array_cosine_distance`` costs tens of milliseconds per search at PRIME's size. A search
matrix holds a variant's vectors as normalised float32 rows ordered by node type, then
node id, with each type's rows one contiguous block: a typed search multiplies the
blocks of its types in place (no copy of the rows), an untyped one the whole matrix.

``afr embed`` writes each variant's matrix next to the store file
(``<store>.vectors/<variant>.afrvec``, see ``save``/``open_matrix``), versioned by a key it
records in afr_meta whenever it writes vectors: any process then maps the file instead of
rebuilding the matrix (no seconds-long first question), and a file whose version is not
the store's is ignored (and rewritten by the next process that builds the matrix). A
process that searches many times (``afr eval``, benchmarks, the Python API) may also
build the matrix from the store when no current file exists (``use_memory_vectors``).
PostgreSQL has its HNSW index and does not use any of this.

The matrices live here, in a registry keyed by store object (the store knows nothing of
them); ``afr.vectors.index`` drops them when it writes vectors.
"""

from __future__ import annotations

import threading
import uuid
import weakref
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import BinaryIO

import numpy as np

from afr.errors import StoreError
from afr.settings import VectorSettings
from afr.store.base import Store, used_params
from afr.store.sidecar import aligned, header_bytes, read_header, write_sidecar_file
from afr.vectors.exact import exact_search

# per variant; above it the store is searched with SQL
DEFAULT_BUDGET_MB = VectorSettings().memory_mb
LOAD_SLICE_ROWS = 65_536  # vectors read per statement when a matrix is built
_MAGIC = b"AFRVEC1\0"


def version_key(variant: str) -> str:
    """The afr_meta key of a variant's vector version (``skb_``: a reload clears it)."""
    return f"skb_vectors_{variant}"


def new_vectors_version(store: Store, variant: str) -> None:
    """Record that ``variant``'s vectors changed: every matrix file of it is stale now.
    Call inside the transaction that writes them."""
    store.set_meta_value(version_key(variant), uuid.uuid4().hex)


@dataclass
class SearchMatrix:
    ids: np.ndarray  # (n,) int64 node ids, ordered by (type, id)
    vectors: np.ndarray  # (n, dim) float32 unit rows in the same order (maybe a memmap)
    blocks: dict[str, tuple[int, int]]  # node type → its rows [start, stop)
    _by_id: np.ndarray = field(init=False, repr=False)  # row positions by ascending id

    def __post_init__(self) -> None:
        self._by_id = np.argsort(self.ids, kind="stable")

    @classmethod
    def from_rows(cls, ids: np.ndarray, types: np.ndarray, vectors: np.ndarray, *,
                  ordered: bool = False) -> SearchMatrix:
        """Rows in any order (or ``ordered`` by type, then id, already) → the block
        layout, normalised."""
        ids = np.asarray(ids, dtype=np.int64)
        types = np.asarray(types, dtype=object)
        if not ordered:
            order = np.lexsort((ids, types.astype(str)))
            ids, types, vectors = ids[order], types[order], vectors[order]
        vectors = _normalized(vectors)
        blocks = _type_blocks(types)
        return cls(ids, vectors, blocks)

    @classmethod
    def load(cls, store: Store, variant: str) -> SearchMatrix:
        """Build the matrix from the store's vectors (seconds at PRIME's size): its rows
        first, then the vectors a slice at a time into one float32 array (one statement
        for all of them held each as a Python object: 10 GB for 1.9 M 384-d vectors)."""
        ids, types = _matrix_rows(store, variant)
        vectors: np.ndarray | None = None
        for a, b, block in _vector_slices(store, variant, ids, types):
            if vectors is None:
                vectors = np.empty((len(ids), block.shape[1]), dtype=np.float32)
            vectors[a:b] = block
        if vectors is None:
            vectors = np.zeros((0, 0), dtype=np.float32)
        return cls.from_rows(ids, types, vectors, ordered=True)

    # -- search ------------------------------------------------------------------------

    def _rows_of_ids(self, ids: Sequence[int]) -> np.ndarray:
        """Row positions of the given node ids that have vectors, ascending by id."""
        if not len(self.ids):
            return np.empty(0, np.int64)
        wanted = np.unique(np.asarray(list(ids), dtype=np.int64))
        sorted_ids = self.ids[self._by_id]
        at = np.minimum(np.searchsorted(sorted_ids, wanted), len(sorted_ids) - 1)
        return self._by_id[at[sorted_ids[at] == wanted]]

    def _type_of_rows(self, rows: np.ndarray, types: Sequence[str]) -> np.ndarray:
        keep = np.zeros(len(rows), dtype=bool)
        for t in types:
            if t in self.blocks:
                start, stop = self.blocks[t]
                keep |= (rows >= start) & (rows < stop)
        return rows[keep]

    def search(self, vector: np.ndarray, k: int, *, types: Sequence[str] | None = None,
               ids: Sequence[int] | None = None, exclude: Sequence[int] | None = None
               ) -> list[tuple[int, float]]:
        """Top-k (node id, cosine similarity), ties broken by node id, as the SQL does."""
        if k <= 0 or not len(self.ids):
            return []
        norm = float(np.linalg.norm(vector))
        query = np.asarray(vector, dtype=np.float32) / (norm if norm else 1.0)
        if ids is not None:
            # A few rows by id (grounded answers): gather just those.
            rows = self._rows_of_ids(ids)
            if types:
                rows = self._type_of_rows(rows, types)
            node_ids = self.ids[rows]
            scores = self.vectors[rows] @ query if len(rows) else np.empty(0, np.float32)
        elif types:
            # Each type's rows are one block: multiply the blocks where they lie.
            spans = [self.blocks[t] for t in dict.fromkeys(types) if t in self.blocks]
            if not spans:
                return []
            node_ids = np.concatenate([self.ids[a:b] for a, b in spans])
            scores = np.concatenate([self.vectors[a:b] @ query for a, b in spans])
        else:
            node_ids, scores = self.ids, self.vectors @ query
        if exclude:
            keep = ~np.isin(node_ids, np.asarray(list(exclude), dtype=np.int64))
            node_ids, scores = node_ids[keep], scores[keep]
        if not len(node_ids):
            return []
        if k < len(scores):
            # Everything at least as good as the k-th score, so ties at the cut are all seen.
            kth = np.partition(scores, len(scores) - k)[len(scores) - k]
            cand = np.nonzero(scores >= kth)[0]
        else:
            cand = np.arange(len(scores))
        best = cand[np.lexsort((node_ids[cand], -scores[cand]))[:k]]
        # tolist(): Python ints and floats of the same values, without a call per element
        return list(zip(node_ids[best].tolist(), scores[best].tolist(), strict=True))

    # -- files -------------------------------------------------------------------------

    def save(self, path: Path, version: str) -> bool:
        """Write the matrix to ``path`` for the store's vector ``version``, atomically;
        False when it cannot be written."""
        dim = self.vectors.shape[1] if self.vectors.ndim == 2 else 0
        return write_sidecar_file(path, _matrix_writer(path, version, self.ids, self.blocks,
                                                       dim, [self.vectors]))


def _matrix_rows(store: Store, variant: str) -> tuple[np.ndarray, np.ndarray]:
    """The ids and types of a variant's matrix rows, ordered by type, then id."""
    (stmt,) = store.sql("embed/vector_rows.sql", variant=variant)
    cols = store.query_numpy(stmt)
    return np.asarray(cols["node_id"], dtype=np.int64), np.asarray(cols["type"], dtype=object)


def _type_blocks(types: np.ndarray) -> dict[str, tuple[int, int]]:
    if not len(types):
        return {}
    starts = np.flatnonzero(np.r_[True, types[1:] != types[:-1]])
    stops = np.r_[starts[1:], len(types)]
    return {str(types[a]): (int(a), int(b)) for a, b in zip(starts, stops, strict=True)}


def _vector_slices(store: Store, variant: str, ids: np.ndarray, types: np.ndarray
                   ) -> Iterator[tuple[int, int, np.ndarray]]:
    """(first row, end row, float32 vectors) of ``LOAD_SLICE_ROWS`` rows at most, each
    within one type, in row order (``_matrix_rows``). A matrix of at most that many rows
    is read in one statement, not one per type (a statement is a job on Spark)."""
    if len(ids) <= LOAD_SLICE_ROWS:
        yield from _whole_matrix(store, variant, ids, types)
        return
    (stmt,) = store.sql("embed/vector_range.sql", variant=variant)
    for start, stop in _type_blocks(types).values():
        for a in range(start, stop, LOAD_SLICE_ROWS):
            b = min(a + LOAD_SLICE_ROWS, stop)
            part = store.query_numpy(stmt, used_params(stmt, {
                "type": str(types[a]), "first": int(ids[a]), "last": int(ids[b - 1])}))
            if len(part["vec"]) != b - a:
                raise _changed_while_read(variant)
            yield a, b, np.stack(part["vec"]).astype(np.float32, copy=False)


def _whole_matrix(store: Store, variant: str, ids: np.ndarray, types: np.ndarray
                  ) -> Iterator[tuple[int, int, np.ndarray]]:
    """``_vector_slices`` of a small matrix: every vector in one read, a slice per type."""
    (stmt,) = store.sql("embed/all_vectors.sql", variant=variant)
    part = store.query_numpy(stmt)
    if not np.array_equal(np.asarray(part["node_id"], dtype=np.int64), ids):
        raise _changed_while_read(variant)
    for start, stop in _type_blocks(types).values():
        yield start, stop, np.stack(part["vec"][start:stop]).astype(np.float32, copy=False)


def _changed_while_read(variant: str) -> StoreError:
    return StoreError(f"the {variant!r} vectors changed while they were read; try again")


def _normalized(vectors: np.ndarray) -> np.ndarray:
    """Rows scaled to unit length (zero rows kept), in place where the array allows."""
    vectors = np.ascontiguousarray(vectors, dtype=np.float32)
    norms = np.linalg.norm(vectors, axis=1, keepdims=True)
    vectors /= np.where(norms > 0, norms, 1.0)
    return vectors


def _matrix_writer(path: Path, version: str, ids: np.ndarray,
                   blocks: dict[str, tuple[int, int]], dim: int,
                   chunks: Iterable[np.ndarray]) -> Callable[[BinaryIO], None]:
    """What writes a matrix file from its ids and its vector rows, chunk after chunk (to
    ``write_sidecar_file``, which makes it atomic)."""
    n = len(ids)
    head = header_bytes(_MAGIC, {"version": version, "count": int(n), "dim": int(dim),
                                 "blocks": {t: list(span) for t, span in blocks.items()}})
    ids_at = aligned(len(head))
    vectors_at = aligned(ids_at + 8 * n)

    def write(fh: BinaryIO) -> None:
        fh.write(head)
        fh.write(b"\0" * (ids_at - fh.tell()))
        fh.write(_bytes_of(np.ascontiguousarray(ids, dtype="<i8")))
        fh.write(b"\0" * (vectors_at - fh.tell()))
        for chunk in chunks:
            # through the buffer protocol: no second copy of a multi-GB matrix
            fh.write(_bytes_of(np.ascontiguousarray(chunk, dtype="<f4")))
        if fh.tell() != vectors_at + 4 * n * dim:
            raise StoreError(f"internal: matrix file {path} came out the wrong size")
    return write


def _bytes_of(array: np.ndarray) -> memoryview | bytes:
    return memoryview(array).cast("B") if array.size else b""


def open_matrix(path: Path, version: str, dim: int) -> SearchMatrix | None:
    """Map the matrix file at ``path`` if it was written for ``version`` (and ``dim``);
    None when it is missing, stale or damaged (then the caller rebuilds)."""
    found = read_header(path, _MAGIC)
    if found is None:
        return None
    header, start = found
    try:
        if header.get("version") != version or int(header.get("dim", -1)) != dim:
            return None
        n = int(header["count"])
        ids_at = aligned(start)
        vectors_at = aligned(ids_at + 8 * n)
        if path.stat().st_size != vectors_at + 4 * n * dim:
            return None
        if n == 0:
            return SearchMatrix(np.empty(0, np.int64), np.zeros((0, dim), np.float32), {})
        ids = np.memmap(path, dtype="<i8", mode="r", offset=ids_at, shape=(n,))
        vectors = np.memmap(path, dtype="<f4", mode="r", offset=vectors_at, shape=(n, dim))
        blocks = {str(t): (int(a), int(b)) for t, (a, b) in header["blocks"].items()}
        return SearchMatrix(np.asarray(ids), vectors, blocks)
    except (OSError, ValueError, KeyError, TypeError):
        return None


def matrix_path(store: Store, variant: str) -> Path | None:
    folder = store.sidecar_dir()
    return folder / f"{variant}.afrvec" if folder is not None else None


def write_matrix_file(store: Store, variant: str, matrix: SearchMatrix | None = None
                      ) -> bool:
    """Write ``variant``'s matrix file for the store's current vector version (building
    the matrix unless given). False when the store has no place or version for it, or
    the file cannot be written (read-only folder, full disk): searches still work."""
    path = matrix_path(store, variant)
    version = store.meta_fact(version_key(variant))
    if path is None or version is None:
        return False
    if matrix is not None:
        return matrix.save(path, version)
    return _stream_matrix_file(store, variant, path, version)


def _stream_matrix_file(store: Store, variant: str, path: Path, version: str) -> bool:
    """The matrix file straight from the store, a normalised slice at a time: the whole
    matrix (2.9 GB at MAG size) is never in memory, only in the file."""
    model = store.embedding_model(variant)
    ids, types = _matrix_rows(store, variant)
    dim = model[1] if model is not None and len(ids) else 0
    slices = (_normalized(block) for _, _, block in _vector_slices(store, variant, ids, types))
    return write_sidecar_file(path, _matrix_writer(path, version, ids, _type_blocks(types),
                                                   dim, slices))


class SearchMatrices:
    """The matrices of one store, mapped or loaded on first use; dropped when its vectors
    change. ``build``: build a matrix from the store when no current file exists (else
    such a variant is searched with SQL)."""

    def __init__(self, store: Store, budget_mb: float = DEFAULT_BUDGET_MB, *,
                 build: bool = True) -> None:
        # A weak reference: the store's runtime holds this object, and a strong one back
        # would keep its connection (and DuckDB's file lock) open after it is dropped.
        self.store = weakref.proxy(store)
        self.build = build
        self.budget_mb = budget_mb
        self._matrices: dict[str, SearchMatrix | None] = {}
        self._lock = threading.Lock()

    def get(self, variant: str, dim: int) -> SearchMatrix | None:
        with self._lock:
            if variant not in self._matrices:
                self._matrices[variant] = self._open(variant, dim)
            return self._matrices[variant]

    def _open(self, variant: str, dim: int) -> SearchMatrix | None:
        store = self.store
        path = matrix_path(store, variant)
        version = store.meta_fact(version_key(variant))
        if path is not None and version is not None:
            mapped = open_matrix(path, version, dim)
            if mapped is not None:
                # mapped pages count against the budget once they are read
                return mapped if self._fits(len(mapped.ids), dim) else None
        if not self.build:
            return None
        total = int(store.run("embed/count.sql", variant=variant)[0][1])
        if not self._fits(total, dim):
            return None
        matrix = SearchMatrix.load(store, variant)
        write_matrix_file(store, variant, matrix)  # the next process maps it
        return matrix

    def _fits(self, rows: int, dim: int) -> bool:
        return rows * dim * 4 / 2**20 <= self.budget_mb

    def invalidate(self) -> None:
        with self._lock:
            self._matrices.clear()


def use_memory_vectors(store: Store, budget_mb: float = DEFAULT_BUDGET_MB) -> None:
    """Let ``store`` answer its vector searches from in-memory matrices, built from the
    store when no current matrix file exists (stores without approximate indexes, DuckDB,
    and stores in exact mode: ``afr.vectors.exact``); ``budget_mb``: the setting
    ``vectors.memory_mb``."""
    if not exact_search(store):
        return
    runtime = store.runtime
    with runtime.lock:
        current = runtime.matrices
        if current is None or not current.build:
            runtime.matrices, runtime.matrices_set = SearchMatrices(store, budget_mb), True


def memory_vectors(store: Store) -> SearchMatrices | None:
    """The store's matrices, when it uses them."""
    return store.runtime.matrices


def search_matrix(store: Store, variant: str, dim: int) -> SearchMatrix | None:
    """The matrix that answers ``store``'s searches of ``variant``, if any: built or
    mapped for stores that asked for it (``use_memory_vectors``), else mapped from a
    current matrix file when the store has one."""
    runtime = store.runtime
    if not runtime.matrices_set:
        if store.builds_vector_indexes or store.sidecar_dir() is None:
            return None
        with runtime.lock:
            if not runtime.matrices_set:
                runtime.matrices = SearchMatrices(store, build=False)
                runtime.matrices_set = True
    matrices = runtime.matrices
    return matrices.get(variant, dim) if matrices is not None else None


def vectors_changed(store: Store) -> None:
    """The store's vectors were written or dropped: its matrices are stale."""
    matrices = store.runtime.matrices
    if matrices is not None:
        matrices.invalidate()
