"""Steps 6 and 7: the hybrid answer list.

Step 6 ranks the grounded answers by the scope level at which they appeared, then by
the question's similarity to their relation-free documents, and takes round(alpha·k).
Step 7 fills the list up to k with plain vector search over the target type (documents
with relations), skipping answers already taken. An answer the graph found that plain
search also ranks in its top k is marked "both".
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from afr.pipeline.result import Candidate
from afr.store.base import Store
from afr.vectors.search import search


def graph_strand(
    store: Store, qvec: np.ndarray, grounded: Sequence[tuple[int, int]], quota: int,
) -> list[Candidate]:
    """Step 6: the first ``quota`` grounded answers by (level, similarity)."""
    if quota <= 0 or not grounded:
        return []
    level = {int(n): int(lv) for n, lv in grounded}
    scored = dict(search(store, "doc", qvec, len(level), ids=list(level)))
    order = sorted(level, key=lambda n: (level[n], -scored.get(n, -1.0), n))
    return [Candidate(n, "graph", level[n], scored.get(n)) for n in order[:quota]]


def vss_strand(
    store: Store, qvec: np.ndarray, target_types: Sequence[str] | None, k: int,
) -> list[tuple[int, float]]:
    """Plain vector search over the candidate nodes of the target type(s)."""
    return search(store, "doc_rel", qvec, k, types=list(target_types) if target_types else None)


def combine(graph: list[Candidate], vss: list[tuple[int, float]], k: int) -> list[Candidate]:
    """Step 7: graph answers first, then VSS answers not yet taken, up to k."""
    vss_rank = {n: s for n, s in vss[:k]}  # "both": plain search alone ranks it in its top k
    out: list[Candidate] = []
    taken: set[int] = set()
    for c in graph[:k]:
        if c.node_id in vss_rank:
            c.source = "both"
        out.append(c)
        taken.add(c.node_id)
    for node_id, score in vss:
        if len(out) >= k:
            break
        if node_id not in taken:
            out.append(Candidate(node_id, "vss", None, score))
            taken.add(node_id)
    return out
