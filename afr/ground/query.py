"""The grounding problem: typed symbols with candidate sets, and triplets between them."""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass(frozen=True)
class GSymbol:
    """A symbol to ground.

    ``candidates``: a constant's ranked node ids (best first); None for a variable.
    ``allowed``: a variable's explicit domain (nodes passing its filters); None = any.
    ``node_type``: the nodes' type; None = any type.
    ``lead``: how many leading candidates share level 1 (a constant's exact name matches,
    ``afr.ground.schedule.level_of_candidate``); 0 or 1 = the plain schedule.
    """

    var: str
    node_type: str | None
    candidates: tuple[int, ...] | None = None
    allowed: tuple[int, ...] | None = None
    lead: int = 0


@dataclass(frozen=True)
class GTriplet:
    head: str
    edge_type: str | None  # None: any relation
    tail: str
    directed: bool = True
    min_hops: int = 1
    max_hops: int = 1


@dataclass(frozen=True)
class GroundingQuery:
    symbols: dict[str, GSymbol]
    triplets: tuple[GTriplet, ...]
    target: str


@dataclass
class GroundingResult:
    answers: list[tuple[int, int]]  # (node id, level), sorted by level then id
    final_level: int | None
    levels: list[int]
    sql: list[str] = field(default_factory=list)
    seconds: float = 0.0
