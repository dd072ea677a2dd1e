"""Run the compiled grounding on a store and apply the scope-expansion stop rule."""

from __future__ import annotations

import json
import time
from collections.abc import Sequence
from dataclasses import replace

from afr.ground.compile import (
    CompiledGrounding,
    bind_param,
    bound_walks,
    compile_grounding,
    edge_walks,
)
from afr.ground.query import (
    EdgeDirections,
    EdgeEndpoints,
    GroundingQuery,
    GroundingResult,
    GTriplet,
)
from afr.ground.schedule import candidate_levels, cut_at_k, scope_schedule
from afr.store.base import Store

MAX_ROUNDS = 1000


# Scope expansion usually stops early: constants are first grounded with the candidates of
# levels up to 8 only, then up to 27, and with all l_max of them only when those find < k
# answers. Each stage costs one statement; a hub constant's 93 candidates can cost 20 ms.
STAGES = (8, 27)


def ground(store: Store, query: GroundingQuery, *, k: int = 20, l_max: int = 100,
           stages: Sequence[int] = STAGES, rule: str = "reference") -> GroundingResult:
    """Answers with their scope levels, cut at the first level with ≥ k of them.

    An answer's level only depends on candidates up to that level, so grounding with each
    constant's candidates of levels ≤ s yields exactly the answers of levels ≤ s; when
    they are already ≥ k, the stop rule fires there and the result is the one of the full
    grounding, without expanding hubs for candidates it never needs. ``stages``: the
    bounds s tried in turn before the full grounding, unless the target's domain holds
    fewer than k nodes. ``rule``: the scope schedule (``afr.ground.schedule``)."""
    started = time.perf_counter()
    directed = edge_directions(store)
    schedule = scope_schedule(l_max, rule)
    most = query.most_answers()
    if most is not None and most < k:
        # fewer than k nodes can answer (a target restricted by its text conditions): no
        # stage can reach k, so each would only repeat the full grounding's fixed cost
        stages = ()
    for bound in stages:
        staged = _stage(query, schedule, bound)
        if staged is None:
            continue
        answers, compiled = _answers(store, staged, directed, k, l_max, rule)
        kept, final = cut_at_k(answers, schedule, k)
        if len(kept) >= k:
            return GroundingResult(kept, final, schedule, sql=compiled.statements,
                                   seconds=time.perf_counter() - started,
                                   params=compiled.params, cyclic=compiled.cyclic)
    answers, compiled = _answers(store, query, directed, k, l_max, rule)
    kept, final = cut_at_k(answers, schedule, k)
    return GroundingResult(kept, final, schedule, sql=compiled.statements,
                           seconds=time.perf_counter() - started,
                           params=compiled.params, cyclic=compiled.cyclic)


def _stage(query: GroundingQuery, schedule: list[int], bound: int) -> GroundingQuery | None:
    """The query with constants cut to their candidates of levels ≤ ``bound``, or None
    when that would change nothing (then neither would any larger bound)."""
    if not schedule or schedule[-1] <= bound:
        return None
    cut = {}
    for var, sym in query.symbols.items():
        if sym.candidates is None:
            continue
        levels = candidate_levels(len(sym.candidates), schedule, sym.lead)
        keep = sum(1 for level in levels if level <= bound)
        if len(sym.candidates) > keep:
            cut[var] = replace(sym, candidates=sym.candidates[:keep])
    if not cut:
        return None
    return replace(query, symbols={**query.symbols, **cut})


def edge_directions(store: Store) -> EdgeDirections:
    """Which of the store's edge types have a direction (its SKB schema's flags)."""
    schema = store.skb_schema()
    return EdgeDirections(tuple((t, schema.edge_directed(t)) for t in schema.edge_types),
                          schema.directed)


def edge_endpoints(store: Store) -> EdgeEndpoints | None:
    """Which node types each edge type connects, as the load recorded it (None: a store
    loaded before afr recorded it; every node-type check then stays)."""
    def read() -> EdgeEndpoints | None:
        value = store.meta_fact("skb_edge_pairs")
        if not value:
            return None
        return EdgeEndpoints(frozenset(tuple(p) for p in json.loads(value)))

    return store.fact("edge_endpoints", read)


def _answers(store: Store, query: GroundingQuery, directed: EdgeDirections, k: int, l_max: int,
             rule: str) -> tuple[list[tuple[int, int]], CompiledGrounding]:
    compiled = compile_grounding(query, schema_directed=directed, sql=store.sql,
                                 k=k, l_max=l_max, adjacency=store.has_edge_lists(),
                                 endpoints=edge_endpoints(store),
                                 presence=store.has_edge_presence(), rule=rule)
    rows = _run_cyclic(store, compiled, query) if compiled.cyclic else store.query_with_columns(
        compiled.statements[-1], _params(compiled.statements[-1], compiled.params))[1]
    return [(int(node), int(level)) for node, level in rows], compiled


WITNESSES_PER_LINK = 3


def provenance_links(query: GroundingQuery, schedule: list[int]
                     ) -> list[tuple[GTriplet, str, list[int], list[int]]]:
    """The links provenance explains: each single-hop triplet between the target and a
    constant, with that constant, its candidates in scope by ``schedule`` and their levels."""
    out = []
    for t in query.triplets:
        if t.max_hops != 1 or query.target not in (t.head, t.tail) or t.head == t.tail:
            continue
        other = t.tail if t.head == query.target else t.head
        sym = query.symbols[other]
        if sym.candidates is None:
            continue
        levels = candidate_levels(len(sym.candidates), schedule, sym.lead)
        out.append((t, other, [int(node) for node in sym.candidates[:len(levels)]], levels))
    return out


def witnesses(store: Store, query: GroundingQuery, answers: list[tuple[int, int]], *,
              l_max: int = 100, rule: str = "reference"
              ) -> dict[int, dict[str, list[dict[str, int]]]]:
    """Which named entities link each answer: for every single-hop triplet between the
    target and a constant, up to three of the constant's candidates next to the answer that
    were in scope at the answer's level (``node``, ``rank``, ``level``). Longer paths are
    not expanded here: their constants' candidates are in ``run_symbols``."""
    if not answers:
        return {}
    schedule = scope_schedule(l_max, rule)
    directed = edge_directions(store)
    out: dict[int, dict[str, list[dict[str, int]]]] = {node: {} for node, _ in answers}
    params: dict[str, object] = {"ids": [n for n, _ in answers],
                                 "lvls": [lv for _, lv in answers]}
    links: list[dict] = []
    others: list[tuple[str, dict[int, int]]] = []  # per link: the constant, rank by node
    for t, other, cands, cand_lvls in provenance_links(query, schedule):
        ranks = {node: rank for rank, node in enumerate(cands, 1)}
        i = len(links)
        params[f"cands{i}"], params[f"cand_lvls{i}"] = cands, cand_lvls
        walks = bound_walks(edge_walks(t, from_tail=t.tail == query.target,
                                       schema_directed=directed),
                            lambda edge_type: bind_param(params, "edge", edge_type))
        links.append({"cands": f"cands{i}", "cand_lvls": f"cand_lvls{i}", "walks": walks})
        others.append((other, ranks))
    if not links:
        return out
    for link, node, cand, level in store.run_tuples("ground/witness.sql", params, links=links,
                                                     adjacency=store.has_edge_lists()):
        other, ranks = others[int(link)]
        found = out[int(node)].setdefault(other, [])
        if len(found) < WITNESSES_PER_LINK and all(w["node"] != cand for w in found):
            found.append({"node": int(cand), "rank": ranks[int(cand)], "level": int(level)})
    return out


def _params(stmt: str, params: dict) -> dict | None:
    from afr.store.base import used_params

    return used_params(stmt, params)


def _run_cyclic(store: Store, compiled: CompiledGrounding, query: GroundingQuery) -> list:
    tables = compiled.tables
    try:
        for var, table in tables.items():
            for stmt in store.sql("ground/fix_init.sql", table=table,
                                  domain=compiled.domains[var]):
                store.execute(stmt, _params(stmt, compiled.params))
        state = None
        for _ in range(MAX_ROUNDS):
            for step in compiled.steps:
                for stmt in store.sql("ground/fix_step.sql", **step):
                    store.execute(stmt, _params(stmt, compiled.params))
            new_state = [tuple(store.run("ground/fix_state.sql", table=t)[0])
                         for t in tables.values()]
            if new_state == state:
                break
            state = new_state
        return store.run("ground/fix_result.sql", table=tables[query.target], max_level=False)
    finally:
        for table in tables.values():
            store.run("ground/fix_drop.sql", table=table)
