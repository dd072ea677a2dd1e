"""The grounding problem: typed symbols with candidate sets, and triplets between them."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any


@dataclass(frozen=True)
class GSymbol:
    """A symbol to ground.

    ``candidates``: a constant's ranked node ids (best first); None for a variable.
    ``allowed``: a variable's explicit domain (nodes passing its filters); None = any.
    ``node_type``: the nodes' type; None = any type.
    ``lead``: how many leading candidates share level 1 (a constant's exact name matches,
    ``afr.ground.schedule.level_of_candidate``); 0 or 1 = the plain schedule.
    ``typed``: every candidate or allowed node is known to be of ``node_type`` (step 4
    found them within it), so the grounding does not check their type again.
    """

    var: str
    node_type: str | None
    candidates: tuple[int, ...] | None = None
    allowed: tuple[int, ...] | None = None
    lead: int = 0
    typed: bool = False


@dataclass(frozen=True)
class GTriplet:
    head: str
    edge_type: str | None  # None: any relation
    tail: str
    directed: bool = True
    min_hops: int = 1
    max_hops: int = 1
    # The other types of a relationship written ``[:a|b]``: each hop takes any of them.
    alternatives: tuple[str, ...] = ()

    @property
    def edge_types(self) -> tuple[str | None, ...]:
        """The types a hop may take, each walked by its own direction; (None,): any."""
        return (self.edge_type, *self.alternatives)


@dataclass(frozen=True)
class EdgeDirections:
    """Which edge types have a direction: an arrow (``->``) is followed only along the
    stored direction of those; over the others, and for ``-`` patterns, edges are read both
    ways. A pattern with any relation (no edge type) follows its arrow only when every
    edge type is directed."""

    types: tuple[tuple[str, bool], ...] = ()  # (edge type, directed)
    default: bool = False  # for edge types not listed

    @classmethod
    def uniform(cls, directed: bool) -> EdgeDirections:
        return cls((), directed)

    @classmethod
    def of(cls, directions: EdgeDirections | bool) -> EdgeDirections:
        return directions if isinstance(directions, EdgeDirections) else cls.uniform(directions)

    def directed(self, edge_type: str | None) -> bool:
        """Whether the edges a triplet of ``edge_type`` (None: any) walks have a direction."""
        flags = dict(self.types)
        if edge_type is None:
            return all(flags.values()) if flags else self.default
        return flags.get(edge_type, self.default)

    def one_way(self, t: GTriplet, edge_type: str | None) -> bool:
        """Whether triplet ``t``'s edges of ``edge_type`` (one of its types; None: any) are
        walked only along the stored direction."""
        return t.directed and self.directed(edge_type)


@dataclass(frozen=True)
class EdgeEndpoints:
    """Which node types each edge type's stored edges connect, as the load found them
    (``afr_meta.skb_edge_pairs``): a node-type check that the edges already imply is left
    out of the grounding (``afr.ground.compile``)."""

    pairs: frozenset[tuple[str, str, str]] = frozenset()  # (edge type, src type, dst type)

    def reached(self, edge_type: str, start: str, start_type: str | None) -> frozenset[str]:
        """The node types at the other end of ``edge_type``'s edges whose ``start`` column
        ('src' or 'dst') holds a node of ``start_type`` (None: of any type)."""
        out = set()
        for etype, src_type, dst_type in self.pairs:
            if etype != edge_type:
                continue
            here, there = (src_type, dst_type) if start == "src" else (dst_type, src_type)
            if start_type is None or here == start_type:
                out.add(there)
        return frozenset(out)


@dataclass(frozen=True)
class GroundingQuery:
    symbols: dict[str, GSymbol]
    triplets: tuple[GTriplet, ...]
    target: str

    def most_answers(self) -> int | None:
        """At most how many answers the grounding can find: the size of the target's own
        domain (a constant's candidates, a variable's allowed nodes); None when the target
        may be any node of its type."""
        target = self.symbols[self.target]
        if target.candidates is not None:
            return len(target.candidates)
        if target.allowed is not None:
            return len(target.allowed)
        return None


@dataclass
class GroundingResult:
    answers: list[tuple[int, int]]  # (node id, level), sorted by level then id
    final_level: int | None
    levels: list[int]
    sql: list[str] = field(default_factory=list)
    seconds: float = 0.0
    # The values of the statements' $name placeholders, and whether the statements are a
    # cyclic plan's loop (run repeatedly, on temp tables) rather than one query.
    params: dict[str, Any] = field(default_factory=dict)
    cyclic: bool = False
