"""What step 8's descriptions state first for one question: its query's relations,
attributes, constants and two-hop paths (``afr.vectors.descriptions.Focus``), read from the
grounded Cypher."""

from __future__ import annotations

from afr.cypher import ResolvedQuery, ResolvedTriplet
from afr.ground import candidate_levels
from afr.methods.af.grounding import GroundedCypher
from afr.store.skb import SkbSchema
from afr.vectors.descriptions import Focus, Hop

FOCUS_NODES = 500  # constants' nodes listed first, at most (their best-ranked)


def constant_nodes(grounded: GroundedCypher) -> list[int]:
    """The nodes the query's named constants (other than the target) grounded to, those
    in scope at the grounding's last level, each constant's in its order."""
    return [node for ids in _in_scope(grounded) for node in ids]


def _in_scope(grounded: GroundedCypher) -> list[list[int]]:
    """Per named constant, its candidates in scope at the last level, best first."""
    level = grounded.result.final_level if grounded.result else None
    schedule = grounded.result.levels if grounded.result else []
    return [[node for node, lv in zip(cands.ids, candidate_levels(len(cands.ids), schedule,
                                                                  cands.exact), strict=False)
             if level is None or lv <= level]
            for var, cands in grounded.symbols.items()
            if var != grounded.resolved.target and cands.constant]


def ranked_constant_nodes(grounded: GroundedCypher) -> tuple[int, ...]:
    """``constant_nodes`` interleaved by rank: every constant's best candidate, then every
    second best … — two constants over one relation (part of France, part of Belgium)
    both lead a capped list."""
    ranked = sorted((rank, order, node) for order, ids in enumerate(_in_scope(grounded))
                    for rank, node in enumerate(ids))
    return tuple(dict.fromkeys(node for _, _, node in ranked))


def query_focus(grounded: GroundedCypher, schema: SkbSchema) -> Focus:
    """The focus of ``grounded``'s query: its relations at the target (in the query's
    order), the target's condition attributes, the constants' nodes, and the two-hop paths
    to a constant (through another symbol, or along a variable-length relation)."""
    resolved = grounded.resolved
    target = resolved.target
    if target is None or target not in resolved.symbols:
        return Focus()
    near = [(t, hop) for t in resolved.triplets
            if target in (t.head, t.tail) and t.head != t.tail and t.edge_type
            for hop in _hops(t, target, schema)]
    attributes = tuple(dict.fromkeys(c.attribute for c in resolved.symbols[target].conditions))
    paths = tuple((hop, far) for t, hop in near
                  for far in _onward(resolved, t, _other(t, target), schema))
    # a path of several hops to a constant (-[:is_a*1..3]->): its second hop too
    paths += tuple((hop, hop) for t, hop in near if t.max_hops > 1
                   and resolved.symbols[_other(t, target)].is_constant)
    return Focus(tuple(dict.fromkeys(hop for _, hop in near)), attributes,
                 ranked_constant_nodes(grounded)[:FOCUS_NODES],
                 tuple(dict.fromkeys(paths)))


def _other(t: ResolvedTriplet, var: str) -> str:
    return t.tail if t.head == var else t.head


def _hops(t: ResolvedTriplet, start: str, schema: SkbSchema) -> list[Hop]:
    """``t`` walked from ``start``, per edge type it may take (``[:a|b]``): as its source,
    its target, or either way (an arrow the SKB does not follow, an undirected type)."""
    assert t.edge_type is not None
    return [Hop(edge_type) if not t.directed or not schema.edge_directed(edge_type)
            else Hop(edge_type, "out" if t.head == start else "in")
            for edge_type in (t.edge_type, *t.alternatives)]


def _onward(resolved: ResolvedQuery, first: ResolvedTriplet, mid: str,
            schema: SkbSchema) -> list[Hop]:
    """The hops from ``mid`` on to a named constant, ``first`` excluded (``mid`` may be a
    constant itself: a word that can mean the castle that belongs to chess)."""
    if mid not in resolved.symbols or first.max_hops != 1:
        return []
    return [hop for t in resolved.triplets
            if t is not first and mid in (t.head, t.tail) and t.head != t.tail
            and t.edge_type and t.max_hops == 1
            and (far := resolved.symbols.get(_other(t, mid))) is not None and far.is_constant
            for hop in _hops(t, mid, schema)]
