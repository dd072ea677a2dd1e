"""Retrieval metrics with the STaRK evaluator's definitions.

- hit@k: 1 if any gold id is among the first k returned ids.
- recall@k: gold ids among the first k / gold ids inside the candidate set (gold ids
  that are not candidates cannot be retrieved and are left out of the denominator).
- MRR: 1 / rank of the first gold id in the returned list, 0 if none is returned.

Duplicates in a returned list count once, at their first position (a list with
duplicates is treated as if they were removed).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence

METRICS = ("hit@1", "hit@5", "hit@10", "hit@20", "recall@20", "mrr")


def dedupe(ranked: Iterable[str]) -> list[str]:
    seen: set[str] = set()
    out = []
    for item in ranked:
        if item not in seen:
            seen.add(item)
            out.append(item)
    return out


def question_metrics(ranked: Sequence[str], gold: Iterable[str],
                     candidates: set[str] | None = None) -> dict[str, float]:
    """Metrics of one question; ``candidates`` restricts the gold set (None: no restriction)."""
    ranked = dedupe(ranked)
    gold_set = {g for g in gold if candidates is None or g in candidates}
    out: dict[str, float] = {}
    for k in (1, 5, 10, 20):
        out[f"hit@{k}"] = 1.0 if gold_set and any(r in gold_set for r in ranked[:k]) else 0.0
    out["recall@20"] = (
        sum(1 for r in ranked[:20] if r in gold_set) / len(gold_set) if gold_set else 0.0
    )
    first = next((i for i, r in enumerate(ranked, 1) if r in gold_set), None)
    out["mrr"] = 1.0 / first if first else 0.0
    return out


def mean_metrics(rows: Iterable[Mapping[str, float]]) -> dict[str, float]:
    rows = list(rows)
    if not rows:
        return {m: 0.0 for m in METRICS}
    return {m: sum(r[m] for r in rows) / len(rows) for m in METRICS}
