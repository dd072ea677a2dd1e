"""Incremental scope expansion: how many candidates per constant at each level.

Two rules (``af.schedule``): ``reference``, afr's default and the authors' code, and
``paper``, Algorithm 1 as printed. They differ from the second level on.
"""

from __future__ import annotations

from bisect import bisect_left

RULES = ("reference", "paper")


def scope_schedule(l_max: int, rule: str = "reference") -> list[int]:
    """The scope of each level, smallest first.

    ``reference``: 1, then l ← int(1.5·l + 0.5), while l ≤ l_max: 1, 2, 3, 5, 8, 12, 18,
    27, 41, 62, 93. ``paper``: Algorithm 1 lines 6–9, l ← 1, then l ← l^1.5 + 0.5 while
    l < l_max (1, 1.5, 2.34, 4.07, 8.71, 26.2), each scope the first ⌊l⌋ candidates:
    1, 2, 4, 8, 26 — as printed, l_max = 100 never gets past 26."""
    if rule == "paper":
        return _paper_schedule(l_max)
    if rule != "reference":
        raise ValueError(f"unknown scope schedule {rule!r} (known: {', '.join(RULES)})")
    levels = []
    level = 1
    while level <= l_max:
        levels.append(level)
        level = int(1.5 * level + 0.5)
    return levels


def _paper_schedule(l_max: int) -> list[int]:
    levels: list[int] = []
    level = 1.0
    while True:
        scope = int(level)
        if not levels or scope > levels[-1]:
            levels.append(scope)
        level = level ** 1.5 + 0.5
        if level >= l_max:  # the loop runs while l < l_max
            return levels


def level_of_rank(rank: int, schedule: list[int]) -> int | None:
    """The first level whose scope includes the candidate at ``rank`` (1-based)."""
    i = bisect_left(schedule, rank)
    return schedule[i] if i < len(schedule) else None


def level_of_candidate(rank: int, schedule: list[int], lead: int = 0) -> int | None:
    """The level at which a constant's candidate at ``rank`` (1-based) enters scope when its
    first ``lead`` candidates are exact name matches: those all enter at level 1 together,
    as one candidate would (a name shared by four nodes puts all four in the first scope),
    and the candidates after them follow the schedule from the second place on."""
    if not schedule:
        return None
    if rank <= lead:
        return schedule[0]
    return level_of_rank(rank - max(lead - 1, 0), schedule)


def candidate_levels(count: int, schedule: list[int], lead: int = 0) -> list[int]:
    """The levels of a constant's first ``count`` candidates, up to the last one in scope
    at the schedule's last level (the rest never enter)."""
    levels = []
    for rank in range(1, count + 1):
        level = level_of_candidate(rank, schedule, lead)
        if level is None:
            break
        levels.append(level)
    return levels


def cut_at_k(answers: list[tuple[int, int]], schedule: list[int], k: int
             ) -> tuple[list[tuple[int, int]], int | None]:
    """Keep answers up to the first level with ≥ k of them (that whole level)."""
    if not answers:
        return [], None
    for level in schedule:
        kept = [a for a in answers if a[1] <= level]
        if len(kept) >= k:
            return kept, level
    last = max(a[1] for a in answers)
    return answers, last
