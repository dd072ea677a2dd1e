"""An independent reference for step 5 — grounding with incremental scope expansion —
written from the method's definition alone: the paper's Algorithms 1 and 2, and step 5 of
docs/method.md for what afr adds (exact name matches share level 1, edge directions per
edge type, the cut at k, provenance).

It imports nothing from afr. The SQL path's helpers (``target_component``,
``EdgeDirections``, ``candidate_levels``, ``cut_at_k``, ``scope_schedule``) and afr's own
set oracle (``afr/ground/oracle.py``, which ``afr synth`` uses and which shares those
helpers) are deliberately not used: a mistake in them must show up as a difference. It
reads afr's query objects only as plain data (attribute access), and it is kept naive:
one whole fixed point per scope level, neighbours read off edge lists, no shortcuts.

The definition, as implemented here:

* Scope levels: l = 1, then l ← int(1.5·l + 0.5) while l ≤ l_max.
* At level l a constant holds its first l candidates; when its first ``lead`` candidates
  are exact name matches (lead ≥ 2), it holds all of them and l − 1 more.
* A variable ranges over its ``allowed`` nodes (the nodes passing its conditions), else
  over every node; a symbol with a node type keeps only nodes of that type.
* Only the symbols connected to the target, and the triplets among them, count.
* A triplet (h)-[e*min..max]->(t) links h and t when a walk of min..max hops over edges of
  type e (any type when e is None) leads from h to t. The walk follows the stored
  direction only when the pattern has an arrow and the edge type is directed (its own
  flag in skb.json, else the SKB's); an untyped pattern follows its arrow only when every
  edge type of the SKB is directed. Otherwise edges are walked both ways. With
  alternative types (h)-[e|f*min..max]->(t), every hop may take an edge of any of them,
  each type walked by its own direction rule.
* Algorithm 2: each triplet intersects S(h) with the nodes that reach S(t), and S(t) with
  the nodes S(h) reaches, until nothing changes; S(target) is the level's answer set.
* Algorithm 1's loop: levels in order, until a level's answer set holds at least k
  nodes. An answer's level is the first level whose answer set holds it. The result is
  every answer up to that level; when no level reaches k, every answer, and the final
  level is the highest answer level (none without answers).
* Provenance: for each answer and each single-hop triplet between the target and a
  constant (in the query's order), the constant's candidates in scope at the answer's
  level that the triplet links to the answer, lowest level first, then lowest id; at most
  three distinct ones per constant.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, field
from typing import Any

WITNESSES_PER_CONSTANT = 3


@dataclass
class Skb:
    """The graph as a test wrote it: node types, edges, and the direction flags of its
    skb.json (``edge_directed``: the edge types that declare their own)."""

    node_types: dict[int, str]
    edges: list[tuple[int, str, int]]
    directed: bool
    edge_types: list[str]
    edge_directed: dict[str, bool] = field(default_factory=dict)

    def __post_init__(self) -> None:
        self.out_edges: dict[int, list[tuple[str, int]]] = defaultdict(list)
        self.in_edges: dict[int, list[tuple[str, int]]] = defaultdict(list)
        for src, etype, dst in self.edges:
            self.out_edges[src].append((etype, dst))
            self.in_edges[dst].append((etype, src))

    def is_directed(self, edge_type: str | None) -> bool:
        if edge_type is None:
            return all(self.is_directed(e) for e in self.edge_types) if self.edge_types \
                else self.directed
        return self.edge_directed.get(edge_type, self.directed)


def levels(l_max: int) -> list[int]:
    out, level = [], 1
    while level <= l_max:
        out.append(level)
        level = int(1.5 * level + 0.5)
    return out


def in_scope(candidates: tuple[int, ...], lead: int, level: int) -> list[int]:
    """A constant's candidates at ``level``."""
    count = lead + level - 1 if lead >= 2 else level
    return list(candidates[:count])


def entry_level(rank: int, lead: int, schedule: list[int]) -> int | None:
    """The first level at which the candidate at 1-based ``rank`` is in scope."""
    for level in schedule:
        if rank <= (lead + level - 1 if lead >= 2 else level):
            return level
    return None


def component(target: str, triplets: tuple[Any, ...]) -> tuple[set[str], list[Any]]:
    reached, changed = {target}, True
    while changed:
        changed = False
        for t in triplets:
            if (t.head in reached) != (t.tail in reached):
                reached |= {t.head, t.tail}
                changed = True
    return reached, [t for t in triplets if t.head in reached and t.tail in reached]


def one_hop(skb: Skb, nodes: set[int], edge_type: str | None, along: bool,
            both_ways: bool) -> set[int]:
    """Nodes one edge from ``nodes``: along the stored direction (``along``), against it,
    or both."""
    out: set[int] = set()
    for node in nodes:
        if along or both_ways:
            out |= {n for e, n in skb.out_edges.get(node, []) if edge_type in (None, e)}
        if not along or both_ways:
            out |= {n for e, n in skb.in_edges.get(node, []) if edge_type in (None, e)}
    return out


def linked(skb: Skb, nodes: set[int], t: Any, from_head: bool) -> set[int]:
    """The nodes at the other end of triplet ``t`` from ``nodes`` (its head's when
    ``from_head``), over walks of min_hops..max_hops hops."""
    types = [t.edge_type, *t.alternatives]
    frontier, found = set(nodes), set()
    for hop in range(1, t.max_hops + 1):
        reached: set[int] = set()
        for edge_type in types:
            both_ways = not (t.directed and skb.is_directed(edge_type))
            reached |= one_hop(skb, frontier, edge_type, from_head, both_ways)
        frontier = reached
        if hop >= t.min_hops:
            found |= frontier
    return found


def answer_set(skb: Skb, query: Any, level: int) -> set[int]:
    """Algorithm 2 at one scope level: the target's nodes."""
    symbols, triplets = component(query.target, query.triplets)
    sets: dict[str, set[int]] = {}
    for var in symbols:
        sym = query.symbols[var]
        if sym.candidates is not None:
            nodes = set(in_scope(sym.candidates, sym.lead, level))
        elif sym.allowed is not None:
            nodes = set(sym.allowed)
        else:
            nodes = set(skb.node_types)
        if sym.node_type is not None:
            nodes = {n for n in nodes if skb.node_types.get(n) == sym.node_type}
        sets[var] = nodes
    while True:
        before = {var: set(nodes) for var, nodes in sets.items()}
        for t in triplets:
            sets[t.head] &= linked(skb, sets[t.tail], t, from_head=False)
            sets[t.tail] &= linked(skb, sets[t.head], t, from_head=True)
        if sets == before:
            return sets[query.target]


@dataclass(frozen=True)
class Grounded:
    answers: list[tuple[int, int]]  # (node, level), by level then node
    final_level: int | None


def ground(skb: Skb, query: Any, *, k: int, l_max: int) -> Grounded:
    """Algorithm 1's loop over the scope levels, with the stop rule."""
    first_level: dict[int, int] = {}
    for level in levels(l_max):
        for node in answer_set(skb, query, level):
            first_level.setdefault(node, level)
        if len(first_level) >= k:
            return Grounded(sorted(first_level.items(), key=lambda a: (a[1], a[0])), level)
    answers = sorted(first_level.items(), key=lambda a: (a[1], a[0]))
    return Grounded(answers, max((lv for _, lv in answers), default=None))


def provenance(skb: Skb, query: Any, answers: list[tuple[int, int]], *, l_max: int
               ) -> dict[int, dict[str, list[dict[str, int]]]]:
    """Per answer and constant: the candidates that link the answer (node, rank, level)."""
    schedule = levels(l_max)
    out: dict[int, dict[str, list[dict[str, int]]]] = {node: {} for node, _ in answers}
    for node, level in answers:
        for t in query.triplets:
            if t.max_hops != 1 or t.head == t.tail or query.target not in (t.head, t.tail):
                continue
            other = t.tail if t.head == query.target else t.head
            sym = query.symbols[other]
            if sym.candidates is None:
                continue
            near = linked(skb, {node}, t, from_head=t.head == query.target)
            found = []
            for rank, cand in enumerate(sym.candidates, 1):
                entered = entry_level(rank, sym.lead, schedule)
                if entered is not None and entered <= level and cand in near:
                    found.append((entered, cand, rank))
            kept = out[node].setdefault(other, [])
            for entered, cand, rank in sorted(found):
                if len(kept) < WITNESSES_PER_CONSTANT and all(w["node"] != cand for w in kept):
                    kept.append({"node": cand, "rank": rank, "level": entered})
            if not kept:
                del out[node][other]
    return out
