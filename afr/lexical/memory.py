"""BM25 from memory-mapped postings (DuckDB and Spark stores): the same scores as the SQL.

DuckDB reaches a term's postings by scanning the row groups that hold it, and plans each
BM25 statement afresh (2–3 ms of a 9 ms median statement on the WordNet SKB; about 19 ms
of each dev question's steps 3–7). ``afr index`` therefore also writes the postings, per node
type and term, to a file beside the store (``<store>.vectors/lexical.afrlex``), as
``afr embed`` writes the vector matrices: any process maps it and scores a query by
reading only its terms' postings. A Spark store does the same (each BM25 statement there
is a job of several stages), for an index of up to ``Store.postings_file_max`` postings;
past that, and on PostgreSQL, which reaches them through its B-tree indexes, BM25 scores
in SQL (``Store.maps_postings``).

The file is versioned by a key in afr_meta that every change of the index removes and
every completed build sets anew (``skb_``: a reload of the SKB clears it too): a file of
another version is never read, and BM25 falls back to the SQL. Opening also checks the
file's counts against the index's (an afr from before these files changes the index
without touching the version).

The scores are the SQL's: the same IDF and term weights, computed in the same order with
the same operations in float64, summed per node and rounded to 1e-9 as
``lexical/bm25.sql`` rounds them (the order of a sum is the one thing that differs, as it
does between the SQL stores; the rounding absorbs it). Tests compare both on random
corpora and through every method's ranked lists.
"""

from __future__ import annotations

import bisect
import math
import uuid
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import BinaryIO

import numpy as np

from afr.settings import BM25Settings
from afr.store.base import Store, used_params
from afr.store.sidecar import aligned, header_bytes, read_header, write_sidecar_file

VERSION_KEY = "skb_lexical_version"
FILE_NAME = "lexical.afrlex"
_MAGIC = b"AFRLEX1\0"


def drop_version(store: Store) -> None:
    """The index is changing: no postings file matches it until a build completes. Call
    inside the transaction that changes it."""
    store.delete_meta_value(VERSION_KEY)


def new_version(store: Store) -> None:
    """A build completed: record a new version for the postings file to carry. Call
    inside the transaction that completes it."""
    store.set_meta_value(VERSION_KEY, uuid.uuid4().hex)


@dataclass
class TypePostings:
    """One node type's postings. Its terms, UTF-8, sorted bytewise, are term i =
    ``blob[term_at[i]:term_at[i + 1]]``, and term i's postings are rows
    ``spans[i, 0]:spans[i, 1]`` of the file's ``node_ids``/``tfs``/``lens``. A term is
    found by binary search in the mapped file: nothing is decoded when it is opened."""

    n_docs: int
    total_len: int
    blob: np.ndarray  # uint8, every type's terms
    term_at: np.ndarray  # int64, this type's terms + 1
    spans: np.ndarray  # int64, (terms, 2)

    def span(self, term: str) -> tuple[int, int]:
        key, count = term.encode("utf-8"), len(self.term_at) - 1
        i = bisect.bisect_left(range(count), key, key=self._term)
        if i < count and self._term(i) == key:
            return int(self.spans[i, 0]), int(self.spans[i, 1])
        return 0, 0

    def _term(self, i: int) -> bytes:
        return self.blob[int(self.term_at[i]):int(self.term_at[i + 1])].tobytes()


@dataclass
class MemoryPostings:
    """The postings of every indexed type, mapped from the file."""

    types: dict[str, TypePostings]
    node_ids: np.ndarray  # int64
    tfs: np.ndarray  # int32
    lens: np.ndarray  # int32

    def bm25(self, terms: Sequence[str], params: BM25Settings, *,
             types: Sequence[str] | None, ids: Sequence[int] | None, k: int | None,
             also: Sequence[int] | None) -> list[tuple[int, float]]:
        """(node id, score) best first, ties by node id: ``lexical/bm25.sql``'s rows."""
        blocks = [self.types[t] for t in dict.fromkeys(types or sorted(self.types))
                  if t in self.types]
        if not blocks:
            return []
        spans = [[b.span(term) for b in blocks] for term in dict.fromkeys(terms)]
        n = float(sum(b.n_docs for b in blocks))
        avglen = float(sum(b.total_len for b in blocks)) / n if n else 0.0
        parts, weights = [], []
        for term_spans in spans:
            df = float(sum(stop - start for start, stop in term_spans))
            if not df:
                continue
            idf = math.log(1.0 + (n - df + 0.5) / (df + 0.5))
            if idf < params.min_idf:
                continue  # held by (nearly) every document searched: see bm25.sql
            for start, stop in term_spans:
                if stop > start:
                    parts.append(np.arange(start, stop))
                    weights.append(np.full(stop - start, idf))
        if not parts:
            return []
        at = np.concatenate(parts)
        nodes, idf_of = self.node_ids[at], np.concatenate(weights)
        if ids is not None:
            keep = np.isin(nodes, np.asarray(list(ids), dtype=np.int64))
            at, nodes, idf_of = at[keep], nodes[keep], idf_of[keep]
        return _ranked(nodes, _term_weights(idf_of, self.tfs[at], self.lens[at], avglen,
                                            params), k, also)


def _term_weights(idf: np.ndarray, tf: np.ndarray, length: np.ndarray, avglen: float,
                  params: BM25Settings) -> np.ndarray:
    """Each posting's idf * tf / (tf + k1 * (1 - b + b * len / avglen)), evaluated as
    the SQL evaluates it (left to right, float64)."""
    tf = tf.astype(np.float64)
    k1, b = float(params.k1), float(params.b)
    return idf * tf / (tf + k1 * (1.0 - b + b * length.astype(np.float64) / avglen))


def _ranked(nodes: np.ndarray, weights: np.ndarray, k: int | None,
            also: Sequence[int] | None) -> list[tuple[int, float]]:
    """Per-node sums rounded as the SQL rounds them; the best ``k`` and every node of
    ``also`` (``k`` None: all), best first, ties by node id."""
    if not len(nodes):
        return []
    unique, inverse = np.unique(nodes, return_inverse=True)
    scores = np.floor(np.bincount(inverse, weights=weights) * 1e9 + 0.5) / 1e9
    if k is None:
        rows = np.arange(len(unique))
    else:
        rows = np.empty(0, dtype=np.int64)
        if 0 < k < len(scores):
            # everything at least as good as the k-th score: ties at the cut all seen
            kth = np.partition(scores, len(scores) - k)[len(scores) - k]
            rows = np.flatnonzero(scores >= kth)
            rows = rows[np.lexsort((unique[rows], -scores[rows]))][:k]
        elif k > 0:
            rows = np.arange(len(unique))
        if also:
            extra = np.flatnonzero(np.isin(unique, np.asarray(list(also), dtype=np.int64)))
            rows = np.union1d(rows, extra)
    rows = rows[np.lexsort((unique[rows], -scores[rows]))]
    return [(int(unique[i]), float(scores[i])) for i in rows]


# -- the file ------------------------------------------------------------------------


def postings_path(store: Store) -> Path | None:
    folder = store.sidecar_dir()
    return folder / FILE_NAME if folder is not None else None


def write_postings_file(store: Store) -> bool:
    """Write the store's postings file for its current index version (a temporary file
    renamed over the old one when complete). False when the store does not map postings,
    has no version (an unfinished build), no place for the file or more postings than
    its kind writes one for (``Store.postings_file_max``): BM25 stays in SQL."""
    path = postings_path(store)
    version = store.meta_fact(VERSION_KEY)
    if not store.maps_postings or path is None or version is None:
        return False
    most = store.postings_file_max
    if most is not None and int(store.run("lexical/memory_check.sql")[0].postings) > most:
        return False
    if not write_sidecar_file(path, lambda fh: _write(fh, store, version)):
        return False
    with store.runtime.lock:
        store.runtime.postings_version = None  # map the new file on the next search
    return True


def _write(fh: BinaryIO, store: Store, version: str) -> None:
    """Header (JSON: each type's statistics and number of terms), then the arrays of
    ``_ARRAYS`` in that order, each 64-byte aligned."""
    types, parts = [], {name: [] for name, _ in _ARRAYS}
    first, blob_size = 0, 0
    for row in store.run("lexical/memory_types.sql"):
        counts = _type_query(store, "lexical/memory_terms.sql", row.type)
        postings = _type_query(store, "lexical/memory_postings.sql", row.type)
        n = np.asarray(counts["n"], dtype=np.int64)
        ends = first + np.cumsum(n)
        spans = np.stack([ends - n, ends], axis=1)
        # bytewise order, whatever order the engine sorted the terms in
        encoded = [str(t).encode("utf-8") for t in counts["term"]]
        order = sorted(range(len(encoded)), key=encoded.__getitem__)
        sizes = np.array([len(encoded[i]) for i in order], dtype=np.int64)
        parts["term_at"].append(blob_size + np.concatenate([[0], np.cumsum(sizes)]))
        parts["spans"].append(spans[order].reshape(-1))
        parts["blob"].append(np.frombuffer(b"".join(encoded[i] for i in order), np.uint8))
        for name in ("node_id", "tf", "len"):
            parts[name].append(np.asarray(postings[name]))
        types.append({"type": row.type, "n_docs": int(row.n_docs),
                      "total_len": int(row.total_len), "terms": len(encoded)})
        first, blob_size = first + int(n.sum()), blob_size + int(sizes.sum())
    fh.write(header_bytes(_MAGIC, {"version": version, "postings": first,
                                   "blob": blob_size, "types": types}))
    for name, dtype in _ARRAYS:
        array = np.concatenate(parts[name]).astype(dtype) if parts[name] \
            else np.zeros(0, dtype)
        fh.write(b"\0" * (aligned(fh.tell()) - fh.tell()))
        fh.write(array.tobytes())


_ARRAYS = (("term_at", "<i8"), ("spans", "<i8"), ("blob", "u1"), ("node_id", "<i8"),
           ("tf", "<i4"), ("len", "<i4"))


def _type_query(store: Store, template: str, node_type: str) -> dict[str, np.ndarray]:
    (sql,) = store.sql(template)
    return store.query_numpy(sql, used_params(sql, {"type": node_type}))


def open_postings(path: Path, version: str) -> MemoryPostings | None:
    """Map the postings file at ``path`` if it was written for ``version``; None when it
    is missing, stale or damaged."""
    found = read_header(path, _MAGIC)
    if found is None:
        return None
    header, offset = found
    try:
        if header.get("version") != version:
            return None
        n, terms = int(header["postings"]), [int(t["terms"]) for t in header["types"]]
        counts = {"term_at": sum(terms) + len(terms), "spans": 2 * sum(terms),
                  "blob": int(header["blob"]), "node_id": n, "tf": n, "len": n}
        arrays = {}
        for name, dtype in _ARRAYS:
            offset = aligned(offset)
            arrays[name] = np.memmap(path, dtype=dtype, mode="r", offset=offset,
                                     shape=(counts[name],)) if counts[name] \
                else np.zeros(0, dtype)
            offset += counts[name] * np.dtype(dtype).itemsize
        if path.stat().st_size != offset:
            return None
        types, at, pair = {}, 0, 0
        spans = arrays["spans"].reshape(-1, 2)
        for t, m in zip(header["types"], terms, strict=True):
            types[t["type"]] = TypePostings(int(t["n_docs"]), int(t["total_len"]),
                                            arrays["blob"], arrays["term_at"][at:at + m + 1],
                                            spans[pair:pair + m])
            at, pair = at + m + 1, pair + m
        return MemoryPostings(types, arrays["node_id"], arrays["tf"], arrays["len"])
    except (OSError, ValueError, KeyError, TypeError):
        return None


def memory_postings(store: Store) -> MemoryPostings | None:
    """The mapped postings that answer ``store``'s BM25, if it maps them and its file is
    current; opened once per store object and version."""
    if not store.maps_postings:
        return None
    version = store.meta_fact(VERSION_KEY)
    if version is None:
        return None
    runtime = store.runtime
    with runtime.lock:
        if runtime.postings_version == version:
            return runtime.postings
    # Opened and checked outside the lock: the check reads the store, and in a batched
    # Spark eval a read waits for the batch's other questions, which must not be waiting
    # on this lock meanwhile (they would be waited for a whole gather window).
    path = postings_path(store)
    postings = open_postings(path, version) if path is not None else None
    if postings is not None and not _matches_index(store, postings):
        postings = None
    with runtime.lock:
        if runtime.postings_version != version:
            runtime.postings, runtime.postings_version = postings, version
        return runtime.postings


def _matches_index(store: Store, postings: MemoryPostings) -> bool:
    """Whether the mapped file holds as many postings, and per type the same document
    count and total length, as the index in SQL. The version alone misses one change: an
    afr from before the file existed rewrites the index without dropping the version, and
    that rewrite almost always changes these counts. One small read per opening."""
    (row,) = store.run("lexical/memory_check.sql")
    stats = {r.type: (int(r.n_docs), int(r.total_len)) for r in store.run(
        "lexical/memory_types.sql")}
    mapped = {t: (p.n_docs, p.total_len) for t, p in postings.types.items()}
    return int(row.postings) == len(postings.node_ids) and stats == mapped
