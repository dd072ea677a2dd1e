"""What one question costs in LLM calls, known before it is asked.

Most steps make one call; step 8 makes many: the pairwise reranker (the default) sorts the
k answers by binary insertion, one call per comparison — 54 to 69 calls at k = 20. Users
see the count before an eval starts (``afr eval``) and after an ask (``--explain``).
Retries of failed calls are not counted; calls answered from the cache cost nothing.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from afr.settings import Settings


@dataclass(frozen=True)
class Calls:
    """The LLM calls of one step of one question: between ``low`` and ``high``."""

    step: str
    low: int
    high: int

    @property
    def text(self) -> str:
        return f"{self.low}" if self.low == self.high else f"{self.low}–{self.high}"


def rerank_calls(method: str, n: int) -> tuple[int, int]:
    """(fewest, most) calls of step 8 reranking ``n`` candidates with ``method``. Pairwise:
    inserting into a sorted list of length L takes floor(log2(L + 1)) to ceil(log2(L + 1))
    comparisons."""
    if method == "none" or n <= 1:
        return 0, 0
    if method == "listwise":
        return 1, 1
    if method == "pointwise":
        return n, n
    return (sum((size + 1).bit_length() - 1 for size in range(1, n)),
            sum(size.bit_length() for size in range(1, n)))


def llm_calls(settings: Settings, *, candidate_types: int, given_cypher: bool = False,
              candidates: int | None = None, method: str | None = None) -> tuple[Calls, ...]:
    """The LLM calls per question of ``method`` (default: the settings'), step by step.
    ``candidate_types``: the SKB's (step 1 asks only when there are several);
    ``given_cypher``: replayed queries replace steps 1–2; ``candidates``: the list step 8
    reranks (default: k)."""
    method = method or settings.ask.method
    out: list[Calls] = []
    if method in ("af", "af+sage"):
        if not given_cypher:
            out += [Calls("step 1", 1, 1)] if candidate_types > 1 else []
            out.append(Calls("step 2", 1, 1))
        if settings.af.repair is True or (settings.af.repair is None and not given_cypher):
            out.append(Calls("repair", 0, 1))
    elif method == "kar":
        out += [Calls("KAR K1", 1, 1), Calls("KAR K6", settings.kar.n, settings.kar.n)]
    reranker = settings.rerank.method
    low, high = rerank_calls(reranker, settings.ask.k if candidates is None else candidates)
    if high:
        out.append(Calls(f"step 8 ({reranker})", low, high))
    return tuple(out)


def total_calls(parts: Sequence[Calls]) -> Calls:
    return Calls("in all", sum(p.low for p in parts), sum(p.high for p in parts))


def describe_calls(parts: Sequence[Calls]) -> str:
    """``step 1: 1 · step 2: 1 · repair: 0–1 · step 8 (pairwise): 54–69 — 56–72 in all``."""
    if not parts:
        return "none"
    every = " · ".join(f"{p.step}: {p.text}" for p in parts)
    return every + (f" — {total_calls(parts).text} in all" if len(parts) > 1 else "")
