"""Fusing ranked lists: reciprocal rank (RRF) and min-max normalised linear fusion.

The hybrid ranking (``afr.methods.af.hybrid_ranking``) fuses several signals over the same nodes —
question similarity, BM25 of the question, the Cypher's text conditions, the grounding's
scope level, membership of the graph strand — each a ranked list with a weight. A node
missing from a list gets nothing from it.

- ``rrf``: ``sum_i w_i / (rrf_k + rank_i)`` — scale-free, robust to odd score ranges;
  with ``ties``, nodes of equal score share the rank of the first of them (a list of
  scope levels is all ties within a level: ranked by position it would hand the order it
  happens to be in — there, similarity — the level's full weight);
- ``linear``: ``sum_i w_i · (s_i − min_i) / (max_i − min_i)`` (a list whose scores are
  all equal gives each of its nodes the full weight).
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence

from afr.settings import FUSIONS

Ranked = Sequence[tuple[int, float]]  # (node id, score), best first


def fuse(signals: Sequence[tuple[Ranked, float]], *, method: str = "rrf",
         rrf_k: float = 60.0, only: set[int] | None = None, ties: bool = False
         ) -> list[tuple[int, float]]:
    """The nodes of all ``signals`` (ranked list, weight) by fused score, best first; ties
    by node id. ``only`` keeps just those nodes (the pool), the others still count for
    ranks. ``ties`` (rrf): equal scores within a list share a rank; without it a list's
    order is its ranking, whatever its scores say."""
    if method not in FUSIONS:
        raise ValueError(f"unknown fusion {method!r}")
    total: dict[int, float] = defaultdict(float)
    for ranked, weight in signals:
        if not ranked:
            continue
        if method == "rrf":
            rank, previous = 0, None
            for position, (node, score) in enumerate(ranked, 1):
                if not ties or score != previous:
                    rank, previous = position, score
                total[node] += weight / (rrf_k + rank)
        else:
            scores = [s for _, s in ranked]
            lo, hi = min(scores), max(scores)
            for node, s in ranked:
                total[node] += weight * ((s - lo) / (hi - lo) if hi > lo else 1.0)
    items = total.items() if only is None else ((n, s) for n, s in total.items() if n in only)
    return sorted(items, key=lambda x: (-x[1], x[0]))
