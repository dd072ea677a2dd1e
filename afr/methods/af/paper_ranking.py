"""Steps 6 and 7 as the paper ranks them (``af.ranking = "paper"``).

Step 6 ranks the grounded answers by the scope level at which they appeared, then by
the question's similarity to their relation-free documents (the authors' code; with
``af.step6_order = "similarity"``, by similarity alone, as Algorithm 1 line 11 reads), and
takes round(alpha·k). Step 7 fills the list up to k with plain vector search over the
target type (documents with relations), skipping answers already taken (and, with
``af.topup_excludes = "cypher"``, every grounded answer: Algorithm 1 line 12). An answer
the graph found that plain search also ranks in its top k is marked "both".
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

import numpy as np

from afr.retrieval.candidate import Candidate
from afr.store.base import Store
from afr.vectors.search import search


def graph_strand(
    store: Store, qvec: np.ndarray, grounded: Sequence[tuple[int, int]], quota: int,
    order: str = "level",
) -> list[Candidate]:
    """Step 6: the first ``quota`` grounded answers by (level, similarity, id); with
    ``order="similarity"``, by (similarity, id) whatever their level.

    Sized to the quota: levels are ranked whole before the next, so only the levels
    that fill it are scored, and the last of them only for its best ``quota − taken``
    (a top-k search, not a sort of the level) — the same first ``quota`` answers as
    scoring every grounded answer. Answers without a vector follow the scored ones of
    their level, by id."""
    if quota <= 0 or not grounded:
        return []
    if order == "similarity":
        return _by_similarity(store, qvec, grounded, quota)
    by_level: dict[int, list[int]] = {}
    for node, level in grounded:
        by_level.setdefault(int(level), []).append(int(node))
    full: list[int] = []  # the levels taken whole, before the last one needed
    last: int | None = None
    for level in sorted(by_level):
        if len(full) + len(by_level[level]) >= quota:
            last = level
            break
        full.extend(by_level[level])
    level_of = {n: lv for lv, nodes in by_level.items() for n in nodes}
    out: list[Candidate] = []
    parts = [(full, len(full))] if full else []
    if last is not None:
        parts.append((by_level[last], quota - len(full)))
    for nodes, need in parts:
        scored = search(store, "doc", qvec, need, ids=nodes)
        found = {n for n, _ in scored}
        ranked = scored + [(n, None) for n in sorted(set(nodes) - found)]
        # in the levels taken whole, order by level first (a search ranks by score alone);
        # one level is in that order already, unless a score ties the unscored's -1
        if len({level_of[n] for n in nodes}) > 1 or (scored and scored[-1][1] <= -1.0):
            ranked.sort(key=lambda r: (level_of[r[0]],
                                       -(r[1] if r[1] is not None else -1.0), r[0]))
        out += [Candidate(n, "graph", level_of[n], s) for n, s in ranked[:need]]
    return out


def _by_similarity(store: Store, qvec: np.ndarray, grounded: Sequence[tuple[int, int]],
                   quota: int) -> list[Candidate]:
    """The best ``quota`` grounded answers by similarity alone (Algorithm 1 line 11:
    VSS(q, C_cypher, αk)); answers without a vector follow, by id."""
    level_of = {int(n): int(lv) for n, lv in grounded}
    scored = search(store, "doc", qvec, quota, ids=list(level_of))
    found = {n for n, _ in scored}
    ranked = sorted(scored, key=lambda r: (-r[1], r[0])) + [
        (n, None) for n in sorted(set(level_of) - found)]
    return [Candidate(n, "graph", level_of[n], s) for n, s in ranked[:quota]]


def graph_strand_all(store: Store, qvec: np.ndarray, grounded: Sequence[tuple[int, int]],
                     order: str = "level") -> list[Candidate]:
    """Every grounded answer in step 6's order: the whole step 6 list."""
    return graph_strand(store, qvec, grounded, len(grounded), order)


def combine(graph: Sequence[Candidate], vss: Sequence[tuple[int, float]], k: int,
            exclude: frozenset[int] = frozenset()) -> list[Candidate]:
    """Step 7: graph answers first, then VSS answers not yet taken (nor in ``exclude``),
    up to k."""
    vss_rank = {n: s for n, s in vss[:k]}  # "both": plain search alone ranks it in its top k
    out: list[Candidate] = []
    taken: set[int] = set(exclude)
    for c in graph[:k]:
        out.append(replace(c, source="both") if c.node_id in vss_rank else c)
        taken.add(c.node_id)
    for node_id, score in vss:
        if len(out) >= k:
            break
        if node_id not in taken:
            out.append(Candidate(node_id, "vss", None, score))
            taken.add(node_id)
    return out
