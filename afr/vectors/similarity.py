"""The similarity graph SAGE expands over (``afr index --similarity``): ``node_sim``.

Nodes of the *eligible* types (the candidate types, plus every type whose median text is
at least ``min_text_chars`` long: atomic entities with little text are left to the
Cypher's names) are linked when they are similar by one of two signals:

- ``doc``: the stored ``doc`` vectors (no new embedding pass);
- ``name``: the node's name and aliases, embedded with the store's embedder.

Per signal: the k-nearest neighbours (``k_cand``) of every eligible node among the
eligible nodes, exact by chunked matrix products over normalised vectors (memory-bounded:
``chunk_mb`` of scores at a time), or approximate by random-hyperplane LSH (``[sage] knn
= "lsh"``, ``afr.vectors.knn``); on a Spark store either runs as Spark jobs
(``afr.vectors.spark_knn``). Those kNN pairs (unordered, each once) are the
*candidates*; per signal and per (unordered) type pair a candidate is kept when its score
is at or above the ``percentile`` of that group's candidate scores (a group of fewer than
``MIN_GROUP_PAIRS`` candidates uses the signal's percentile over all of them). A pair
kept by either
signal is an edge (OR), one row per (pair, signal), stored in both directions.

The graph lives apart from ``edges`` (schema/007_similarity.sql), so grounding never walks
it. A rebuild computes everything first and then replaces the old graph in one
transaction: until it commits, the old graph answers; a failed build leaves it as it was.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from afr.embed.base import Embedder, embed_texts
from afr.errors import AfrError, EmbeddingError
from afr.progress import bar
from afr.store.base import Store
from afr.vectors.knn import (
    DEFAULT_CHUNK_MB,
    LshParams,
    Neighbours,
    exact_neighbours,
    lsh_neighbours,
)
from afr.vectors.memory import SearchMatrix, version_key

SUMMARY = "any"  # node_sim_meta's row for the whole graph (OR of the signals)
VECTORS_META_KEY = "skb_similarity_vectors"  # the doc-vector version the graph was built on
KNN_META_KEY = "skb_similarity_knn"  # how its candidates were found (KnnChoice.describe)
NAME_BATCH = 256
# A type pair needs this many candidate pairs for a threshold of its own (else: the
# signal's threshold over all its candidates).
MIN_GROUP_PAIRS = 50


@dataclass(frozen=True)
class KnnChoice:
    """How the candidates are found: ``exact`` kNN, or ``lsh`` (approximate, ``lsh``'s
    parameters): ``[sage] knn`` and its ``lsh_*`` settings."""

    method: str = "exact"
    lsh: LshParams = field(default_factory=LshParams)

    def describe(self, rows: int, k: int) -> str:
        """``exact``, or the LSH parameters used for ``rows`` vectors and ``k``
        neighbours (its bits chosen from the size unless set): what a graph records."""
        if self.method != "lsh":
            return "exact"
        lsh = self.lsh.for_size(rows, k)
        return f"lsh ({lsh.tables} tables × {lsh.bits} bits, seed {lsh.seed})"


@dataclass
class SignalVectors:
    """One signal's unit vectors of the eligible nodes, rows ordered by (type, id)."""

    signal: str
    ids: np.ndarray  # (n,) int64
    types: np.ndarray  # (n,) object
    vectors: np.ndarray  # (n, dim) float32, unit rows (zero rows stay zero)


@dataclass
class CandidatePairs:
    """Unordered pairs of rows (lo < hi) of one signal's matrix, with their scores."""

    lo: np.ndarray  # int64 row positions
    hi: np.ndarray
    scores: np.ndarray  # float32 cosine similarity


@dataclass
class TypePairThreshold:
    signal: str
    src_type: str
    dst_type: str
    threshold: float
    n_cand: int
    n_kept: int


@dataclass
class DegreeStats:
    nodes: int = 0
    mean: float = 0.0
    median: float = 0.0
    max: int = 0


@dataclass
class SimilarityReport:
    types: list[str] = field(default_factory=list)  # eligible types
    nodes: int = 0  # eligible nodes
    k_cand: int = 0
    knn: str = "exact"  # how the candidates were found: KnnChoice.describe
    percentile: float = 0.0
    thresholds: list[TypePairThreshold] = field(default_factory=list)
    pairs: int = 0  # distinct node pairs linked (any signal)
    rows: int = 0  # rows of node_sim (pairs × signals × 2 directions)
    degree: DegreeStats = field(default_factory=DegreeStats)
    seconds: float = 0.0


# -- the pure parts: kNN, thresholds, degrees ------------------------------------------


def has_similarity_graph(store: Store) -> bool:
    """Whether ``afr index --similarity`` has built a graph in this store (read once per
    store object)."""
    def read() -> bool:
        if not store.table_exists("node_sim_meta"):
            return False  # a store of an older schema, opened read-only
        return bool(store.run("similarity/has_graph.sql"))
    return store.fact("similarity_graph", read)


def normalise(vectors: np.ndarray) -> np.ndarray:
    out = np.ascontiguousarray(vectors, dtype=np.float32).copy()
    norms = np.linalg.norm(out, axis=1, keepdims=True)
    out /= np.where(norms > 0, norms, 1.0)
    return out


def knn_candidates(vectors: np.ndarray, k: int, *, chunk_mb: float = DEFAULT_CHUNK_MB,
                   progress=None) -> CandidatePairs:
    """Every row's ``k`` most similar other rows (exact: all scores of a chunk of rows
    against all rows, one matrix product), as unordered pairs, each once. ``vectors``
    must be unit rows."""
    return candidate_pairs(vectors, exact_neighbours(vectors, k, chunk_mb=chunk_mb,
                                                     progress=progress))


def candidate_pairs(vectors: np.ndarray, found: Neighbours) -> CandidatePairs:
    """Neighbour lists as unordered pairs, each once, in (lo, hi) order. The pair's score
    is recomputed per pair in float64 (then stored as float32), so it does not depend on
    which block or bucket found the pair."""
    n = len(vectors)
    if not len(found.src):
        empty = np.empty(0, np.int64)
        return CandidatePairs(empty, empty.copy(), np.empty(0, np.float32))
    lo = np.minimum(found.src, found.dst).astype(np.int64)
    hi = np.maximum(found.src, found.dst).astype(np.int64)
    key = np.unique(lo * n + hi)  # unordered pairs, each once, in (lo, hi) order
    lo, hi = key // n, key % n
    return CandidatePairs(lo, hi, pair_scores(vectors, lo, hi))


def find_neighbours(store: Store, vectors: np.ndarray, k: int, knn: KnnChoice, *,
                    chunk_mb: float = DEFAULT_CHUNK_MB, progress=None) -> Neighbours:
    """The ``k`` nearest neighbours of every row, as ``knn`` says (exact, or LSH), run
    as Spark jobs on a store that has a DataFrame engine, else here."""
    session = store.dataframe_session()
    if session is not None:
        from afr.vectors import spark_knn

        if knn.method == "lsh":
            return spark_knn.lsh_neighbours(session, vectors, k, knn.lsh)
        return spark_knn.exact_neighbours(session, vectors, k, chunk_mb=chunk_mb)
    if knn.method == "lsh":
        return lsh_neighbours(vectors, k, knn.lsh)
    return exact_neighbours(vectors, k, chunk_mb=chunk_mb, progress=progress)


def pair_scores(vectors: np.ndarray, lo: np.ndarray, hi: np.ndarray,
                batch: int = 1 << 16) -> np.ndarray:
    """Cosine similarity of each pair of unit rows, in float64, stored as float32."""
    out = np.empty(len(lo), np.float32)
    for a in range(0, len(lo), batch):
        b = a + batch
        out[a:b] = np.einsum("ij,ij->i", vectors[lo[a:b]].astype(np.float64),
                             vectors[hi[a:b]].astype(np.float64))
    return out


def type_pair_keys(types: np.ndarray, lo: np.ndarray, hi: np.ndarray
                   ) -> tuple[np.ndarray, list[tuple[str, str]]]:
    """Each pair's group (an index into the returned, sorted list of unordered type
    pairs)."""
    names = sorted({str(t) for t in types})
    code = {t: i for i, t in enumerate(names)}
    codes = np.asarray([code[str(t)] for t in types], dtype=np.int64)
    a, b = codes[lo], codes[hi]
    first, second = np.minimum(a, b), np.maximum(a, b)
    group_key = first * len(names) + second
    groups = np.unique(group_key)
    index = np.searchsorted(groups, group_key)
    return index, [(names[g // len(names)], names[g % len(names)]) for g in groups]


def threshold_pairs(signal: str, types: np.ndarray, pairs: CandidatePairs,
                    percentile: float, *, min_group: int = MIN_GROUP_PAIRS
                    ) -> tuple[np.ndarray, list[TypePairThreshold]]:
    """Which candidates are kept (a mask), and the threshold of each type pair: the
    ``percentile`` (linear interpolation, as SQL's quantile_cont) of its scores. A type
    pair with fewer than ``min_group`` candidates takes the signal's threshold over all
    its candidates instead: a percentile of a handful of scores would always keep the
    best of them, however weak."""
    keep = np.zeros(len(pairs.scores), dtype=bool)
    out: list[TypePairThreshold] = []
    if not len(pairs.scores):
        return keep, out
    overall = float(np.percentile(pairs.scores.astype(np.float64), percentile))
    group, names = type_pair_keys(types, pairs.lo, pairs.hi)
    for g, (src_type, dst_type) in enumerate(names):
        members = np.flatnonzero(group == g)
        scores = pairs.scores[members]
        threshold = float(np.percentile(scores.astype(np.float64), percentile)) \
            if len(members) >= min_group else overall
        kept = scores >= np.float32(threshold)
        keep[members[kept]] = True
        out.append(TypePairThreshold(signal, src_type, dst_type, threshold,
                                     len(members), int(kept.sum())))
    return keep, out


def degree_stats(node_ids: np.ndarray, src: np.ndarray, dst: np.ndarray) -> DegreeStats:
    """Distinct neighbours per node over ``node_ids`` (nodes without an edge count 0)."""
    n = len(node_ids)
    if n == 0:
        return DegreeStats()
    if len(src):
        pairs = np.unique(np.stack([src, dst], axis=1), axis=0)
        ids, counts = np.unique(pairs[:, 0], return_counts=True)
    else:
        ids, counts = np.empty(0, np.int64), np.empty(0, np.int64)
    degrees = np.zeros(n, dtype=np.int64)
    order = np.argsort(node_ids)
    at = order[np.searchsorted(node_ids[order], ids)]
    degrees[at] = counts
    return DegreeStats(n, float(degrees.mean()), float(np.median(degrees)),
                       int(degrees.max()))


# -- reading the store -----------------------------------------------------------------


def eligible_types(store: Store, *, min_text_chars: int,
                   types: Sequence[str] | None = None) -> list[str]:
    """The types to link: ``types`` when given (checked against the schema), else the
    candidate types plus the types whose median text has ``min_text_chars`` or more."""
    schema = store.skb_schema()
    if types:
        unknown = [t for t in types if t not in schema.node_types]
        if unknown:
            raise AfrError(f"unknown node type(s) {', '.join(map(repr, unknown))} for "
                           f"--types (types: {', '.join(sorted(schema.node_types))})")
        return sorted(dict.fromkeys(types))
    rich = {r.type for r in store.run("similarity/text_lengths.sql")
            if r.median_chars is not None and float(r.median_chars) >= min_text_chars}
    return sorted(set(schema.candidate_types) | rich)


def doc_signal(store: Store, types: Sequence[str]) -> SignalVectors:
    """The stored ``doc`` vectors of the eligible types."""
    if store.embedding_model("doc") is None:
        raise EmbeddingError("the store has no 'doc' vectors yet; run 'afr embed' first")
    matrix = SearchMatrix.load(store, "doc")
    spans = [(t, matrix.blocks[t]) for t in types if t in matrix.blocks]
    if not spans:
        return SignalVectors("doc", np.empty(0, np.int64), np.empty(0, object),
                             np.zeros((0, 1), np.float32))
    return _ordered("doc", np.concatenate([matrix.ids[a:b] for _, (a, b) in spans]),
                    np.concatenate([np.full(b - a, t, dtype=object) for t, (a, b) in spans]),
                    np.concatenate([np.asarray(matrix.vectors[a:b]) for _, (a, b) in spans]))


def _ordered(signal: str, ids: np.ndarray, types: np.ndarray, vectors: np.ndarray
             ) -> SignalVectors:
    """Rows by (type, id) as Python orders them — the same on every store (a database's
    collation may order type names otherwise), so ties among neighbours fall alike."""
    order = np.lexsort((ids, types.astype(str)))
    return SignalVectors(signal, ids[order].astype(np.int64), types[order],
                         normalise(vectors[order]))


def name_texts(store: Store, types: Sequence[str]) -> tuple[np.ndarray, np.ndarray, list[str]]:
    """(ids, types, text) of the eligible nodes: the name, then its aliases."""
    rows = store.run("similarity/names.sql", {"types": list(types)})
    aliases: dict[int, list[str]] = {}
    for node_id, alias in store.run("similarity/aliases.sql", {"types": list(types)}):
        aliases.setdefault(int(node_id), []).append(alias)
    ids = np.asarray([int(r.id) for r in rows], dtype=np.int64)
    node_types = np.asarray([r.type for r in rows], dtype=object)
    texts = ["; ".join([r.name, *aliases.get(int(r.id), [])]).strip("; ") for r in rows]
    return ids, node_types, texts


def name_signal(store: Store, embedder: Embedder, types: Sequence[str], *,
                progress: bool | None = None) -> SignalVectors:
    ids, node_types, texts = name_texts(store, types)
    parts: list[np.ndarray] = []
    with bar(len(texts), "embedding names", enabled=progress, unit="node") as pbar:
        for start in range(0, len(texts), NAME_BATCH):
            batch = texts[start:start + NAME_BATCH]
            parts.append(embed_texts(embedder, [t or " " for t in batch]))
            pbar.update(len(batch))
    vectors = np.concatenate(parts) if parts else np.zeros((0, 1), np.float32)
    return _ordered("name", ids, node_types, vectors)


# -- the build ---------------------------------------------------------------------------


def build_similarity_graph(store: Store, embedder: Embedder, *, k_cand: int = 50,
                           percentile: float = 95.0, types: Sequence[str] | None = None,
                           min_text_chars: int = 200, chunk_mb: float = DEFAULT_CHUNK_MB,
                           knn: KnnChoice | None = None,
                           progress: bool | None = None) -> SimilarityReport:
    """Build ``node_sim`` and ``node_sim_meta`` anew (see the module's docstring)."""
    if k_cand < 1:
        raise AfrError(f"k_cand must be at least 1, not {k_cand}")
    if not 0 <= percentile <= 100:
        raise AfrError(f"the percentile must lie in [0, 100], not {percentile:g}")
    started = time.perf_counter()
    store.require_skb()
    store.require_initialised()  # an older store gets the node_sim tables first
    knn = knn or KnnChoice()
    report = SimilarityReport(k_cand=k_cand, percentile=percentile)
    report.types = eligible_types(store, min_text_chars=min_text_chars, types=types)
    signals = [doc_signal(store, report.types),
               name_signal(store, embedder, report.types, progress=progress)]
    # LSH chooses its bits from a signal's size: one description per distinct choice
    report.knn = "; ".join(dict.fromkeys(knn.describe(len(s.ids), k_cand) for s in signals))
    columns = _kept_pairs(store, signals, k_cand, knn, chunk_mb, percentile, report,
                          progress)
    src, dst = columns["src"], columns["dst"]
    all_ids = np.unique(np.concatenate([s.ids for s in signals]))
    report.nodes = len(all_ids)
    report.rows = len(src)
    report.pairs = len(np.unique(np.minimum(src, dst) * (int(all_ids.max(initial=0)) + 1)
                                 + np.maximum(src, dst))) if len(src) else 0
    report.degree = degree_stats(all_ids, src, dst)
    meta = _meta_params(report, embedder.model_id)
    doc_version = store.meta_fact(version_key("doc")) or ""

    def write() -> None:
        store.run("similarity/clear.sql")
        store.write_rows("node_sim", columns)
        store.run("similarity/insert_meta.sql", meta)
        store.set_meta_value(VECTORS_META_KEY, doc_version)
        store.set_meta_value(KNN_META_KEY, report.knn)

    store.run_in_transaction(write, retries=0)
    store.forget_derived_facts()
    report.seconds = time.perf_counter() - started
    return report


def _kept_pairs(store: Store, signals: Sequence[SignalVectors], k_cand: int,
                knn: KnnChoice, chunk_mb: float, percentile: float,
                report: SimilarityReport, progress: bool | None) -> dict[str, np.ndarray]:
    """Each signal's nearest neighbours thresholded per type pair (the thresholds go to
    ``report``): ``node_sim``'s columns, every kept pair in both directions."""
    src_parts: list[np.ndarray] = []
    dst_parts: list[np.ndarray] = []
    signal_parts: list[np.ndarray] = []
    score_parts: list[np.ndarray] = []
    for sig in signals:
        with bar(len(sig.ids), f"similar nodes ({sig.signal})", enabled=progress,
                 unit="node") as pbar:
            found = find_neighbours(store, sig.vectors, k_cand, knn,
                                    chunk_mb=chunk_mb, progress=pbar)
            cands = candidate_pairs(sig.vectors, found)
        keep, thresholds = threshold_pairs(sig.signal, sig.types, cands, percentile)
        report.thresholds += thresholds
        a, b = sig.ids[cands.lo[keep]], sig.ids[cands.hi[keep]]
        scores = cands.scores[keep]
        src_parts += [a, b]
        dst_parts += [b, a]
        score_parts += [scores, scores]
        signal_parts.append(np.full(2 * len(a), sig.signal, dtype=object))
    src = np.concatenate(src_parts) if src_parts else np.empty(0, np.int64)
    dst = np.concatenate(dst_parts) if dst_parts else np.empty(0, np.int64)
    return {
        "src": src.astype(np.int64), "dst": dst.astype(np.int64),
        "signal": np.concatenate(signal_parts) if signal_parts else np.empty(0, object),
        "score": (np.concatenate(score_parts) if score_parts
                  else np.empty(0)).astype(np.float32),
    }


def _meta_params(report: SimilarityReport, embedder: str) -> dict:
    rows = [(t.signal, t.src_type, t.dst_type, t.threshold, t.n_cand, t.n_kept, None, None,
             None, None) for t in report.thresholds]
    d = report.degree
    rows.insert(0, (SUMMARY, None, None, None, sum(t.n_cand for t in report.thresholds),
                    report.pairs, d.nodes, d.mean, d.median, d.max))
    cols = list(zip(*rows, strict=True))
    return {"signals": list(cols[0]), "src_types": list(cols[1]), "dst_types": list(cols[2]),
            "thresholds": list(cols[3]), "n_cand": list(cols[4]), "n_kept": list(cols[5]),
            "n_nodes": list(cols[6]), "deg_mean": list(cols[7]), "deg_median": list(cols[8]),
            "deg_max": list(cols[9]), "k_cand": report.k_cand, "embedder": embedder,
            "percentile": report.percentile}


def graph_is_stale(store: Store) -> bool:
    """Whether the ``doc`` vectors changed since the similarity graph was built (an
    ``afr embed --rebuild`` or a new model): the graph then links by old vectors."""
    built_on = store.meta_fact(VECTORS_META_KEY)
    return built_on is not None and built_on != (store.meta_fact(version_key("doc")) or "")


def similarity_meta(store: Store) -> list[tuple]:
    """The build record of the store's similarity graph (empty: none built)."""
    if not store.table_exists("node_sim_meta"):
        return []
    return store.run("similarity/meta.sql")


@dataclass(frozen=True)
class SimilarityState:
    """The similarity graph as built (``afr info``)."""

    nodes: int  # nodes with at least one similar neighbour
    pairs: int  # node pairs linked
    degree_mean: float
    k_cand: int
    percentile: float
    embedder: str
    built_at: Any
    stale: bool  # the doc vectors changed since: 'afr index --similarity' again
    knn: str  # how the candidates were found; "not recorded" for graphs built before


def similarity_state(store: Store) -> SimilarityState | None:
    """The similarity graph's build record, or None when none was built."""
    rows = similarity_meta(store)
    if not rows or rows[0].signal != SUMMARY:
        return None
    r = rows[0]
    return SimilarityState(int(r.n_nodes or 0), int(r.n_kept or 0), float(r.deg_mean or 0),
                           int(r.k_cand), float(r.percentile), str(r.embedder), r.built_at,
                           graph_is_stale(store),
                           store.meta_fact(KNN_META_KEY) or "not recorded")
