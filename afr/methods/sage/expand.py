"""SAGE (Structure Aware Graph Expansion): a seed list, widened by its neighbours in the
similarity graph (``node_sim``, built by ``afr index --similarity``).

1. seeds: the first ``k_seed`` (10) of a seed list — hybrid retrieval over the target type
   (``--method sage``) or AF-Retriever's steps 1–7 (``--method af+sage``);
2. neighbours: every 1-hop neighbour of the seeds in ``node_sim`` (one statement,
   ``sql/sage/expand.sql``), of the target type unless ``same_type`` is off, seeds left
   out;
3. pruning: BM25 of the question over the neighbours (global IDF) and their cosine
   similarity to the question (``doc``), each min-max normalised within the neighbour
   set, fused 0.6 / 0.4 (``[sage]`` bm25 / dense);
4. the list: the seeds in seed order, then k − |seeds| more by fused score: the
   neighbours and (``compete``, afr's default) the seed list's next answers, scored
   alike, so a neighbour enters by outscoring what the seed list had (off: the paper's
   top neighbours alone); the seed list's own answers (neighbours or not) keep its order
   (the pruning's scores only decide where a neighbour enters: re-scored, BM25's near
   ties would come out in another order than the seed list's fusion gave them, for no
   evidence); when there are too few, the seed list's next answers fill the rest. The
   dense weight is scaled by the fusion's trust in the embedder.

Policy ``skip_if_relational`` (the paper's "−Edge" variant, our default): no expansion
when the seeds came from a Cypher query with a relation in the target's component whose
graph strand filled its quota (round(alpha·k) grounded answers): the AF list stays as it
is. ``always`` expands every time. Without a similarity graph the seed list is returned,
with a warning.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import asdict, dataclass, field
from typing import Any

import numpy as np

from afr.lexical import bm25, has_lexical_index
from afr.retrieval.candidate import Candidate
from afr.retrieval.fusion import fuse
from afr.settings import BM25Settings, SageSettings
from afr.store.base import Store
from afr.vectors.search import search
from afr.vectors.similarity import graph_is_stale, has_similarity_graph

SEED = "sage_seed"
NEIGHBOUR = "sage_neighbour"
FILL = "sage_fill"  # the seed list's answers after the seeds, when neighbours run short
NO_GRAPH = "no similarity graph: run `afr index --similarity`"
STALE = ("the similarity graph is older than the doc vectors: rebuild it with "
         "`afr index --similarity`")
SCORE_DIGITS = 6  # fused scores are compared at this precision (same order on every store)


@dataclass
class Neighbour:
    """A node one similarity link away from a seed: its best link to any seed."""

    node_id: int
    via_seed: int
    signal: str
    sim: float


@dataclass
class SageTrace:
    """What the expansion did, for --explain, --json and the run log."""

    seeds: int = 0
    neighbours: int = 0  # found in node_sim (after the type filter)
    kept: int = 0  # in the final list
    filled: int = 0  # slots filled from the seed list instead
    skipped: str | None = None  # why there was no expansion
    settings: dict[str, Any] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


def neighbours_of(store: Store, seeds: Sequence[int], types: Sequence[str] | None
                  ) -> list[Neighbour]:
    """Step 2: the seeds' 1-hop neighbours in node_sim (of ``types`` when given), best
    similarity first."""
    if not seeds:
        return []
    rows = store.run("sage/expand.sql", {"seeds": [int(s) for s in seeds],
                                         "types": list(types) if types else None},
                     types=bool(types))
    return [Neighbour(int(r.node_id), int(r.via_seed), str(r.signal), float(r.sim))
            for r in rows]


def prune(store: Store, qvec: np.ndarray, question: str, ids: Sequence[int],
          types: Sequence[str] | None, settings: SageSettings,
          params: BM25Settings = BM25Settings(), *, dense_trust: float = 1.0
          ) -> list[tuple[int, float, float | None, float | None]]:
    """Step 3: (node, fused, dense, bm25) of every node of ``ids`` (the neighbours, and the
    seed list's answers competing with them), best first (ties by id). Each signal is
    min-max normalised over ``ids``; a node without any query term has BM25 0, one without
    a vector gets nothing from the dense side. ``dense_trust`` (0 to 1) scales the dense
    weight: the fusion's trust in the store's embedder."""
    ids = list(ids)
    if not ids:
        return []
    dense = search(store, "doc", qvec, len(ids), ids=ids)
    lexical = dict(bm25(store, question, params=params, types=types, ids=ids)) \
        if has_lexical_index(store) else {}
    lexical_all = sorted(((n, lexical.get(n, 0.0)) for n in ids), key=lambda x: (-x[1], x[0]))
    signals = [(dense, settings.dense * dense_trust)]
    if lexical:
        signals.append((lexical_all, settings.bm25))
    fused = fuse(signals, method="linear")
    dense_of = dict(dense)
    scored = {n: round(s, SCORE_DIGITS) for n, s in fused}
    order = sorted(ids, key=lambda n: (-scored.get(n, 0.0), n))
    return [(n, scored.get(n, 0.0), dense_of.get(n), lexical.get(n) if lexical else None)
            for n in order]


def _merged(ranked: list[tuple[int, float, float | None, float | None]], rest: list[int],
            n: int) -> list[tuple[int, float, float | None, float | None]]:
    """The first ``n`` of the neighbours (in ``ranked``'s order) and the seed list's next
    answers (``rest``, in the seed list's order), merged: a neighbour goes before the next
    of ``rest`` only if it scores higher."""
    row, seeded = {r[0]: r for r in ranked}, set(rest)
    own = [row[node] for node in rest if node in row]
    others = [r for r in ranked if r[0] not in seeded]
    out = []
    i = j = 0
    while len(out) < n and (i < len(own) or j < len(others)):
        if j < len(others) and (i >= len(own) or others[j][1] > own[i][1]):
            out.append(others[j])
            j += 1
        else:
            out.append(own[i])
            i += 1
    return out


def relational_skip(*, triplets: int, grounded: int, quota: int) -> str | None:
    """The −Edge rule: why a relational Cypher's list is not expanded (None: expand)."""
    if triplets > 0 and grounded >= max(quota, 1):
        return (f"the Cypher is relational and grounded {grounded} answers "
                f"(≥ the graph quota {quota})")
    return None


def expand_list(store: Store, qvec: np.ndarray, question: str, seed_list: list[Candidate],
                k: int, types: Sequence[str] | None, settings: SageSettings,
                *, params: BM25Settings = BM25Settings(), skip: str | None = None,
                dense_trust: float = 1.0
                ) -> tuple[list[Candidate], SageTrace, list[str]]:
    """Steps 1–4: the final list (k long at most), what the expansion did, and warnings.
    ``types``: the target type(s) neighbours must have (None: any); ``skip``: a reason
    not to expand (the list is then the seed list's first k); ``dense_trust``: see
    ``prune``."""
    trace = SageTrace(settings=asdict(settings))
    warnings: list[str] = []
    seeds = seed_list[:min(settings.k_seed, k)]
    trace.seeds = len(seeds)
    if skip is None and not has_similarity_graph(store):
        skip = NO_GRAPH
        warnings.append(NO_GRAPH + "; the answers are the seed list's")
    if skip is not None:
        trace.skipped = skip
        return seed_list[:k], trace, warnings
    if graph_is_stale(store):
        warnings.append(STALE)
    found = neighbours_of(store, [c.node_id for c in seeds],
                          types if settings.same_type else None)
    trace.neighbours = len(found)
    link = {n.node_id: n for n in found}
    # with ``compete``, the seed list's next answers stand beside the neighbours: the
    # expansion then only adds neighbours that outscore what the seed list had; an answer
    # the seed list has is its, in its place, even when it is a neighbour too
    rest = {c.node_id: c for c in seed_list[len(seeds):]} if settings.compete else {}
    ranked = prune(store, qvec, question, [*(n for n in link if n not in rest), *rest],
                   types if settings.same_type else None, settings, params,
                   dense_trust=dense_trust)
    out = [Candidate(c.node_id, SEED, c.level, c.vss_score, {
        **c.provenance, "sage": {"role": "seed", "seed_rank": rank, "strand": c.source}})
        for rank, c in enumerate(seeds, 1)]
    for node, fused, dense, lexical in _merged(ranked, list(rest), max(k - len(seeds), 0)):
        scores = {"fused": fused, "dense": dense, "bm25": lexical}
        if node in rest:
            c = rest[node]
            out.append(Candidate(node, FILL, c.level, c.vss_score, {
                **c.provenance, "scores": scores, "sage": {"role": "fill",
                                                           "strand": c.source}}))
            trace.filled += 1
            continue
        n = link[node]
        out.append(Candidate(node, NEIGHBOUR, None, dense, {
            "scores": scores, "sage": {"role": "neighbour", "via_seed": n.via_seed,
                                       "signal": n.signal, "sim": n.sim}}))
        trace.kept += 1
    taken = {c.node_id for c in out}
    for c in seed_list[len(seeds):]:
        if len(out) >= k:
            break
        if c.node_id not in taken:
            out.append(Candidate(c.node_id, FILL, c.level, c.vss_score, {
                **c.provenance, "sage": {"role": "fill", "strand": c.source}}))
            taken.add(c.node_id)
            trace.filled += 1
    return out, trace, warnings
