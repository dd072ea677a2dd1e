"""The paper's Algorithm 2, round by round, in sets: the gold answers of `afr synth`.

(The tests hold it, and the SQL grounding, to tests/grounding_oracle.py, which is
written independently of this module and of the helpers it shares with the SQL path.)

Deliberately plain. For each scope level l, constants keep the candidates that have entered by l (their
first l, or all exact name matches and l − 1 more),
variables range over their type (or domain), and every triplet prunes both its ends
until nothing changes; the target's set is that level's answer set. An answer's level
is the first level at which it appears.
"""

from __future__ import annotations

import time
from collections import defaultdict
from collections.abc import Iterable

from afr.cypher.model import target_component
from afr.ground.query import EdgeDirections, GroundingQuery, GroundingResult, GTriplet
from afr.ground.schedule import candidate_levels, cut_at_k, scope_schedule


class Graph:
    def __init__(self, edges: Iterable[tuple[int, str, int]], node_types: dict[int, str],
                 directed: EdgeDirections | bool) -> None:
        self.node_types = node_types
        self.directed = EdgeDirections.of(directed)
        self.out: dict[tuple[int, str], set[int]] = defaultdict(set)
        self.inn: dict[tuple[int, str], set[int]] = defaultdict(set)
        self.out_any: dict[int, set[int]] = defaultdict(set)
        self.in_any: dict[int, set[int]] = defaultdict(set)
        for src, etype, dst in edges:
            self.out[(src, etype)].add(dst)
            self.inn[(dst, etype)].add(src)
            self.out_any[src].add(dst)
            self.in_any[dst].add(src)

    def step(self, nodes: set[int], edge_type: str | None, forward: bool,
             both: bool) -> set[int]:
        """Nodes one edge away from ``nodes`` (forward: along stored direction)."""
        out: set[int] = set()
        for n in nodes:
            if edge_type is None:
                if forward or both:
                    out |= self.out_any.get(n, set())
                if not forward or both:
                    out |= self.in_any.get(n, set())
            else:
                if forward or both:
                    out |= self.out.get((n, edge_type), set())
                if not forward or both:
                    out |= self.inn.get((n, edge_type), set())
        return out

    def reach(self, nodes: set[int], t: GTriplet, forward: bool) -> set[int]:
        frontier, found = set(nodes), set()
        for hop in range(1, t.max_hops + 1):
            # each hop may take any of the triplet's types, each by its own direction
            frontier = set().union(*(
                self.step(frontier, edge_type, forward, not self.directed.one_way(t, edge_type))
                for edge_type in t.edge_types))
            if hop >= t.min_hops:
                found |= frontier
        return found


def ground_level(graph: Graph, query: GroundingQuery, level: int,
                 query_levels: list[int]) -> set[int]:
    symbols, triplets = target_component(query.target, query.triplets)
    sets: dict[str, set[int]] = {}
    for var in symbols:
        sym = query.symbols[var]
        if sym.candidates is not None:
            levels = candidate_levels(len(sym.candidates), query_levels, sym.lead)
            domain = {c for c, lv in zip(sym.candidates, levels, strict=False) if lv <= level}
        elif sym.allowed is not None:
            domain = set(sym.allowed)
        else:
            domain = set(graph.node_types)
        if sym.node_type is not None:
            domain = {n for n in domain if graph.node_types.get(n) == sym.node_type}
        sets[var] = domain
    changed = True
    while changed:
        changed = False
        for t in triplets:
            head = sets[t.head] & graph.reach(sets[t.tail], t, forward=False)
            if head != sets[t.head]:
                sets[t.head], changed = head, True
            tail = sets[t.tail] & graph.reach(sets[t.head], t, forward=True)
            if tail != sets[t.tail]:
                sets[t.tail], changed = tail, True
    return sets[query.target]


def oracle_ground(edges: Iterable[tuple[int, str, int]], node_types: dict[int, str],
                  query: GroundingQuery, *, k: int, l_max: int,
                  directed_skb: EdgeDirections | bool, graph: Graph | None = None,
                  rule: str = "reference") -> GroundingResult:
    started = time.perf_counter()
    graph = graph or Graph(edges, node_types, directed_skb)
    schedule = scope_schedule(l_max, rule)
    first_seen: dict[int, int] = {}
    for level in schedule:
        for node in ground_level(graph, query, level, schedule):
            first_seen.setdefault(node, level)
        if len(first_seen) >= k:
            break
    answers = sorted(first_seen.items(), key=lambda a: (a[1], a[0]))
    kept, final = cut_at_k(answers, schedule, k)
    return GroundingResult(kept, final, schedule, seconds=time.perf_counter() - started)
