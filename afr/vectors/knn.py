"""Nearest neighbours of unit vectors among themselves, exact or approximate, and the
recall of an approximate neighbour list against the exact one.

The similarity graph (``afr.vectors.similarity``) links each node to its ``k`` most
similar nodes. Exact kNN scores every pair (quadratic); the approximate one scores only
pairs that share a bucket of random-hyperplane LSH (the sign pattern of ``bits`` random
projections, in each of ``tables`` independent tables), so its cost grows with the bucket
sizes instead. Both return the same shape, a :class:`Neighbours` list, so the pairs kept
afterwards and the recall are computed the same way for either. The functions here run
on one machine; ``afr.vectors.spark_knn`` runs the same kernels as Spark tasks.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace

import numpy as np

DEFAULT_CHUNK_MB = 64.0


# Unset ``bits``: buckets of about this many times ``k`` rows on average, so a row finds
# enough candidates in each table (bench/bench_spark_knn.py --sweep).
BUCKET_PER_K = 4


@dataclass(frozen=True)
class LshParams:
    """Random-hyperplane LSH: ``tables`` independent bucketings of ``bits`` hyperplanes
    each (None: chosen from the number of rows, ``for_size``); a bucket larger than
    ``bucket_max`` rows is scored in slices of that size (a bound on each task's
    matrix); ``seed`` fixes the hyperplanes."""

    tables: int = 8
    bits: int | None = None
    bucket_max: int = 2048
    seed: int = 0

    def for_size(self, n: int, k: int) -> LshParams:
        """These parameters with ``bits`` set: as given, or so that ``n`` rows fall into
        buckets of about ``BUCKET_PER_K × k`` rows."""
        if self.bits is not None:
            return self
        bits = round(math.log2(max(n, 2) / (BUCKET_PER_K * max(k, 1))))
        return replace(self, bits=min(40, max(1, bits)))


@dataclass(frozen=True)
class Neighbours:
    """Directed neighbour lists: row ``src[i]`` has row ``dst[i]`` among its nearest."""

    src: np.ndarray  # int64 row positions
    dst: np.ndarray


def chunk_rows(n: int, chunk_mb: float) -> int:
    """Rows per block whose scores against all ``n`` rows take ``chunk_mb`` of float32."""
    return max(1, int(chunk_mb * 2**20 // (4 * max(n, 1))))


def block_neighbours(block: np.ndarray, start: int, vectors: np.ndarray, k: int
                     ) -> Neighbours:
    """The exact ``k`` nearest rows of ``vectors`` for the rows ``start …`` of ``block``
    (a slice of ``vectors``): one matrix product, one's own row excluded."""
    return _block_top_k(block, start, vectors, k)[0]


def _block_top_k(block: np.ndarray, start: int, vectors: np.ndarray, k: int
                 ) -> tuple[Neighbours, np.ndarray]:
    """``block_neighbours`` and each neighbour's score (float32, from the product)."""
    n = len(vectors)
    scores = block @ vectors.T  # (rows, n)
    rows = np.arange(start, start + len(block))
    scores[rows - start, rows] = -np.inf  # never one's own neighbour
    if k < n - 1:
        nearest = np.argpartition(-scores, k - 1, axis=1)[:, :k]
    else:
        nearest = np.argsort(-scores, axis=1)[:, :k]
    found = Neighbours(np.repeat(rows, k).astype(np.int64),
                       nearest.reshape(-1).astype(np.int64))
    return found, np.take_along_axis(scores, nearest, axis=1).reshape(-1)


def exact_neighbours(vectors: np.ndarray, k: int, *, chunk_mb: float = DEFAULT_CHUNK_MB,
                     progress=None) -> Neighbours:
    """Every row's ``k`` most similar other rows (exact), block by block of
    ``chunk_rows`` rows, so the scores held at once stay within ``chunk_mb``."""
    n = len(vectors)
    k = min(k, n - 1)
    if n < 2 or k < 1:
        return _no_neighbours()
    chunk = chunk_rows(n, chunk_mb)
    parts = []
    for start in range(0, n, chunk):
        parts.append(block_neighbours(vectors[start:start + chunk], start, vectors, k))
        if progress is not None:
            progress.update(len(parts[-1].src) // k)
    return concat_neighbours(parts)


def _no_neighbours() -> Neighbours:
    return Neighbours(np.empty(0, np.int64), np.empty(0, np.int64))


def concat_neighbours(parts: list[Neighbours]) -> Neighbours:
    if not parts:
        return _no_neighbours()
    return Neighbours(np.concatenate([p.src for p in parts]),
                      np.concatenate([p.dst for p in parts]))


# -- random-hyperplane LSH -------------------------------------------------------------


def hyperplanes(dim: int, params: LshParams) -> np.ndarray:
    """(tables, dim, bits) Gaussian hyperplanes, the same for the same seed (``bits``
    set: ``LshParams.for_size``)."""
    assert params.bits is not None
    rng = np.random.default_rng(params.seed)
    return rng.standard_normal((params.tables, dim, params.bits)).astype(np.float32)


def bucket_codes(vectors: np.ndarray, planes: np.ndarray) -> np.ndarray:
    """(n, tables) bucket of each row per table: its projections' sign bits as a number."""
    weights = (1 << np.arange(planes.shape[2], dtype=np.int64))
    codes = np.empty((len(vectors), planes.shape[0]), np.int64)
    for t, table in enumerate(planes):
        codes[:, t] = ((vectors @ table) > 0).astype(np.int64) @ weights
    return codes


def bucket_slices(rows: np.ndarray, bucket_max: int) -> list[np.ndarray]:
    """The rows of one bucket in slices of at most ``bucket_max`` (a huge bucket would
    make one task score a quadratic number of pairs)."""
    return [rows[i:i + bucket_max] for i in range(0, len(rows), bucket_max)]


def within_bucket(rows: np.ndarray, vectors: np.ndarray, k: int
                  ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(src, dst, score): each row's ``k`` most similar rows of its own bucket."""
    if len(rows) < 2:
        empty = np.empty(0, np.int64)
        return empty, empty.copy(), np.empty(0, np.float32)
    local = vectors[rows]
    found, scores = _block_top_k(local, 0, local, min(k, len(rows) - 1))
    return rows[found.src], rows[found.dst], scores.astype(np.float32)


def lsh_neighbours(vectors: np.ndarray, k: int, params: LshParams) -> Neighbours:
    """Every row's ``k`` most similar rows among those sharing a bucket with it in some
    table (approximate: a true neighbour in no shared bucket is missed). Each row's best
    ``k`` so far are kept in an (n, k) table that each LSH table's are merged into, so
    memory stays at a few times n × k (all tables' pairs at once, then one sort, took
    8.6 GB for 265,000 rows)."""
    n = len(vectors)
    if n < 2 or k < 1:
        return _no_neighbours()
    params = params.for_size(n, k)
    codes = bucket_codes(vectors, hyperplanes(vectors.shape[1], params))
    best = _RowBest.empty(n, k)
    for t in range(codes.shape[1]):
        found = _RowBest.empty(n, k)
        order = np.argsort(codes[:, t], kind="stable")
        bounds = np.flatnonzero(np.diff(codes[order, t])) + 1
        for bucket in np.split(order, bounds):
            for rows in bucket_slices(bucket, params.bucket_max):
                found.put(rows, *within_bucket(rows, vectors, k))
        best = best.merged(found, k)
    return best.neighbours()


@dataclass(frozen=True)
class _RowBest:
    """Each row's neighbours so far: ``dst`` (n, k) rows, -1 where none, and their
    ``score`` (-inf where none)."""

    dst: np.ndarray
    score: np.ndarray

    @staticmethod
    def empty(n: int, k: int) -> _RowBest:
        return _RowBest(np.full((n, k), -1, np.int64), np.full((n, k), -np.inf, np.float32))

    def put(self, rows: np.ndarray, src: np.ndarray, dst: np.ndarray, score: np.ndarray
            ) -> None:
        """One bucket slice's neighbours (``within_bucket``: each of ``rows`` in turn)."""
        if len(src):
            per_row = len(src) // len(rows)
            self.dst[rows, :per_row] = dst.reshape(len(rows), per_row)
            self.score[rows, :per_row] = score.reshape(len(rows), per_row)

    def merged(self, other: _RowBest, k: int) -> _RowBest:
        """Each row's best ``k`` of both, by score (ties: lower row first); a neighbour
        both hold counts once, at its better score."""
        dst, score = np.hstack((self.dst, other.dst)), np.hstack((self.score, other.score))
        by_dst = np.argsort(dst, axis=1, kind="stable")
        dst, score = np.take_along_axis(dst, by_dst, 1), np.take_along_axis(score, by_dst, 1)
        same = (dst[:, 1:] == dst[:, :-1]) & (dst[:, 1:] >= 0)
        drop_first = same & (score[:, :-1] < score[:, 1:])
        drop = np.zeros(dst.shape, bool)
        drop[:, :-1] |= drop_first
        drop[:, 1:] |= same & ~drop_first
        dst[drop], score[drop] = -1, -np.inf
        # (score descending, row ascending) as one unsigned key: the float's bits made
        # to order as the float does, inverted, above the row number
        bits = score.view(np.int32).astype(np.int64)
        ordered = np.where(bits >= 0, bits, bits ^ 0x7FFFFFFF)
        key = ((0x7FFFFFFF - ordered).astype(np.uint64) << np.uint64(32)) \
            | (dst + 1).astype(np.uint64)
        take = np.argsort(key, axis=1, kind="stable")[:, :k]
        return _RowBest(np.take_along_axis(dst, take, 1), np.take_along_axis(score, take, 1))

    def neighbours(self) -> Neighbours:
        src = np.repeat(np.arange(len(self.dst), dtype=np.int64), self.dst.shape[1])
        dst = self.dst.reshape(-1)
        keep = dst >= 0
        return Neighbours(src[keep], dst[keep])


# -- recall ------------------------------------------------------------------------------


def sample_rows(n: int, sample: int, seed: int = 0) -> np.ndarray:
    rng = np.random.default_rng(seed)
    return np.sort(rng.choice(n, size=min(sample, n), replace=False))


def recall_at_k(vectors: np.ndarray, found: Neighbours, k: int, *, sample: int = 1000,
                seed: int = 0) -> float:
    """Of the exact ``k`` nearest neighbours of a sample of rows, the share that ``found``
    lists for them (1.0: it misses none). The exact lists are computed here, for the
    sample only: a sample of rows against all rows, one matrix product."""
    n = len(vectors)
    k = min(k, n - 1)
    if n < 2 or k < 1:
        return 1.0
    rows = sample_rows(n, sample, seed)
    truth = _sample_truth(vectors, rows, k)
    listed = {}
    mine = np.isin(found.src, rows)
    for s, d in zip(found.src[mine].tolist(), found.dst[mine].tolist(), strict=True):
        listed.setdefault(s, set()).add(d)
    hits = sum(len(listed.get(int(r), set()) & set(t.tolist())) for r, t in zip(rows, truth,
                                                                                  strict=True))
    return hits / truth.size


def _sample_truth(vectors: np.ndarray, rows: np.ndarray, k: int) -> np.ndarray:
    """(len(rows), k): the exact neighbours of each sampled row."""
    out = np.empty((len(rows), k), np.int64)
    for i in range(0, len(rows), 256):
        picked = rows[i:i + 256]
        scores = vectors[picked] @ vectors.T
        scores[np.arange(len(picked)), picked] = -np.inf
        out[i:i + len(picked)] = np.argpartition(-scores, k - 1, axis=1)[:, :k]
    return out
