"""Step 5 compiled to SQL: one statement for acyclic query graphs, a fixed-point loop
for cyclic ones.

Every constant candidate carries the scope level at which it enters (rank 1 → level 1,
rank 4 → level 5, …; all exact name matches → level 1). An answer's level is the smallest, over all consistent assignments,
of the largest level used; for a tree that is a bottom-up pass from the leaves to the
target where each hop takes the MIN level over neighbours and each node the MAX over its
children. Threshold that at level L and you get exactly the set the paper's algorithm
finds with the first L candidates per constant, so all levels come out of one query.
"""

from __future__ import annotations

import uuid
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from afr.cypher.model import target_component
from afr.ground.query import EdgeDirections, EdgeEndpoints, GroundingQuery, GTriplet
from afr.ground.schedule import candidate_levels, scope_schedule


@dataclass
class CompiledGrounding:
    statements: list[str]
    params: dict[str, Any]
    cyclic: bool = False
    # Cyclic plans run as a loop in afr.ground.run; these drive it.
    tables: dict[str, str] = field(default_factory=dict)
    steps: list[dict[str, Any]] = field(default_factory=list)
    domains: dict[str, dict[str, Any]] = field(default_factory=dict)


def edge_ways(t: GTriplet, edge_type: str | None, *, from_tail: bool,
              schema_directed: EdgeDirections | bool) -> list[dict[str, str]]:
    """How to walk a triplet's edges of ``edge_type`` (one of its types) over the stored
    edges, from the nodes at one end (the tail's when ``from_tail``) to the other: which
    column to match them on, which to output. Both ways when the triplet or the edge type
    is undirected (``schema_directed``: per edge type, or one flag for all)."""
    # from the tail: the tail is the edge's dst → match dst, output src.
    forward = {"match": "dst", "out": "src"} if from_tail else {"match": "src", "out": "dst"}
    if not EdgeDirections.of(schema_directed).one_way(t, edge_type):
        return [forward, {"match": forward["out"], "out": forward["match"]}]
    return [forward]


#: One type of a triplet and the ways its edges are walked.
Walk = tuple[str | None, list[dict[str, str]]]


def edge_walks(t: GTriplet, *, from_tail: bool, schema_directed: EdgeDirections | bool
               ) -> list[Walk]:
    """Per type the triplet may take (None: any), the ways to walk its edges."""
    return [(edge_type, edge_ways(t, edge_type, from_tail=from_tail,
                                  schema_directed=schema_directed))
            for edge_type in t.edge_types]


def bind_param(params: dict[str, Any], prefix: str, value: Any) -> str:
    """Add ``value`` to a statement's ``params`` under a new name, and return the name."""
    name = f"{prefix}{len(params)}"
    params[name] = value
    return name


def bound_walks(walks: list[Walk], bind: Callable[[str], str]) -> list[dict[str, Any]]:
    """The walks as the templates take them: each type the name ``bind`` gives it as a
    bound parameter (None: any type)."""
    return [{"edge": bind(edge_type) if edge_type else None, "ways": ways}
            for edge_type, ways in walks]


def is_tree(symbols: list[str], triplets: list[GTriplet]) -> bool:
    # Connected by construction: a tree has one edge fewer than nodes and no self-loops.
    return len(triplets) == len(symbols) - 1 and all(t.head != t.tail for t in triplets)


# A symbol's neighbour in the tree: (symbol, triplet, whether it is the triplet's tail).
_Child = tuple[str, GTriplet, bool]
# An unconstrained leaf: (its node type, None: any; triplet, whether it is the tail).
_Leaf = tuple[str | None, GTriplet, bool]


class _Builder:
    def __init__(self, query: GroundingQuery, schema_directed: EdgeDirections | bool,
                 l_max: int, adjacency: bool = False,
                 endpoints: EdgeEndpoints | None = None, presence: bool = False,
                 rule: str = "reference") -> None:
        self.q = query
        # Walk the store's adjacency lists (edge_lists) rather than its edges table.
        self.adjacency = adjacency
        # Check "has some neighbour" in the store's edge_presence rather than its edges.
        self.presence = presence and not adjacency
        self.endpoints = endpoints
        self.directed = EdgeDirections.of(schema_directed)
        self.schedule = scope_schedule(l_max, rule)
        self.params: dict[str, Any] = {}
        self.ctes: list[dict[str, Any]] = []
        self.n = 0

    def param(self, prefix: str, value: Any) -> str:
        return bind_param(self.params, prefix, value)

    def name(self, prefix: str) -> str:
        self.n += 1
        return f"{prefix}{self.n}"

    def domain(self, var: str) -> dict[str, Any] | None:
        """The symbol's own domain, or None when it is an unrestricted variable."""
        sym = self.q.symbols[var]
        type_param = self.type_param(sym.node_type)
        if sym.candidates is not None:
            # candidates beyond the last level are never in scope
            lvls = candidate_levels(len(sym.candidates), self.schedule, sym.lead)
            ids = [int(node) for node in sym.candidates[:len(lvls)]]
            return {"kind": "const", "ids": self.param("c", ids), "lvls": self.param("l", lvls),
                    "type": type_param, "typed": sym.typed}
        if sym.allowed is not None:
            return {"kind": "allowed", "ids": self.param("a", [int(i) for i in sym.allowed]),
                    "type": type_param, "typed": sym.typed}
        return {"kind": "typed" if type_param else "any", "type": type_param}

    def walks(self, t: GTriplet, child_is_tail: bool) -> list[Walk]:
        """How to walk from the child's nodes to the parent's over the stored edges."""
        return edge_walks(t, from_tail=child_is_tail, schema_directed=self.directed)

    def walk_params(self, walks: list[Walk]) -> list[dict[str, Any]]:
        return bound_walks(walks, lambda edge_type: self.param("e", edge_type))

    def lands_on(self, walks: list[Walk], from_type: str | None, to_type: str | None, *,
                 backwards: bool = False) -> bool:
        """Whether one hop along ``walks`` (``backwards``: from their ways' ``out`` end to
        their ``match`` end) from nodes of ``from_type`` (None: any) reaches only nodes
        of ``to_type``, by the edges the store holds: then a check of that type is
        implied and left out. A store that did not record its edges' endpoints implies
        nothing."""
        if self.endpoints is None or to_type is None:
            return False
        reached: set[str] = set()
        for edge_type, ways in walks:
            if edge_type is None:
                return False
            for way in ways:
                start = way["out"] if backwards else way["match"]
                reached |= self.endpoints.reached(edge_type, start, from_type)
        return reached <= {to_type}

    def reach(self, source: str | None, source_type: str | None, t: GTriplet,
              child_is_tail: bool, restrict: str | None = None) -> str:
        """CTEs for the (possibly multi-hop) walk; returns the name of the final set.

        ``restrict`` names a set the parent's nodes must lie in anyway: a single hop joins
        it at once, so a hub or a whole edge type is never expanded past what can survive.
        (The hops of a variable-length walk also feed each other, so they stay unrestricted.)
        """
        walks = self.walk_params(self.walks(t, child_is_tail))
        frontier, found = source, []
        for hop in range(1, t.max_hops + 1):
            name = self.name("h")
            self.ctes.append({"name": name, "kind": "hop", "source": frontier,
                              "source_type": source_type if hop == 1 else None,
                              "walks": walks,
                              "restrict": restrict if t.max_hops == 1 else None,
                              "adjacency": self.adjacency})
            frontier = name
            if hop >= t.min_hops:
                found.append(name)
        if len(found) == 1:
            return found[0]
        name = self.name("u")
        self.ctes.append({"name": name, "kind": "union", "parts": found})
        return name

    def tree(self, var: str, parent_triplet: GTriplet | None, triplets: list[GTriplet]) -> str:
        """CTEs for the subtree at ``var``; returns the name of its (id, lvl) set.

        Children with sets of their own are joined first; children that are unconstrained
        leaves ("has some neighbour of type T") are then checked only for the nodes that
        survived, instead of for every edge of their type."""
        children = self.children(var, parent_triplet, triplets)
        dom = self.domain(var)
        base = self.base_set(dom, has_children=bool(children))
        if base and not children:
            return base
        var_type = self.q.symbols[var].node_type
        constrained, leaves = self.sort_children(children, triplets)
        current = self.join_children(base, constrained, triplets, var_type, dom["type"])
        if current is not None and any(t.max_hops == 1 for _, t, _ in leaves):
            current = self.check_neighbours(
                current, [leaf for leaf in leaves if leaf[1].max_hops == 1], var_type)
            leaves = [leaf for leaf in leaves if leaf[1].max_hops > 1]
        if not leaves:
            return current  # type: ignore[return-value]
        return self.join_leaves(current, leaves, var_type, dom["type"])

    def children(self, var: str, parent_triplet: GTriplet | None,
                 triplets: list[GTriplet]) -> list[_Child]:
        """The symbols one triplet away from ``var``, its parent's triplet excepted."""
        children = []
        for t in triplets:
            if t is parent_triplet:
                continue
            if t.head == var:
                children.append((t.tail, t, True))
            elif t.tail == var:
                children.append((t.head, t, False))
        return children

    def base_set(self, dom: dict[str, Any], *, has_children: bool) -> str | None:
        """The set the symbol's own domain allows, filtered by its type, when that domain
        is finite or nothing else bounds the symbol; None when its children will."""
        finite = dom["kind"] in ("const", "allowed")
        if not finite and has_children:
            return None
        base = self.name("d")
        self.ctes.append({"name": base, **dom})
        # a join with nodes per statement (about 1 ms of a 5 ms one on WordNet), unless
        # the nodes are known to be of the type already
        if finite and dom["type"] and not dom["typed"]:
            typed = self.name("d")
            self.ctes.append({"name": typed, "kind": "combine", "base": None,
                              "parts": [base], "joins": [], "levels": ["b.lvl"],
                              "type": dom["type"]})
            base = typed
        return base

    def sort_children(self, children: list[_Child], triplets: list[GTriplet]
                     ) -> tuple[list[_Child], list[_Leaf]]:
        """The children with sets of their own, and the unconstrained leaves."""
        constrained, leaves = [], []
        for child, t, child_is_tail in children:
            child_sym = self.q.symbols[child]
            grandchildren = [x for x in triplets if x is not t and child in (x.head, x.tail)]
            if (child_sym.candidates is None and child_sym.allowed is None
                    and not grandchildren):
                leaves.append((child_sym.node_type, t, child_is_tail))
            else:
                constrained.append((child, t, child_is_tail))
        return constrained, leaves

    def join_children(self, base: str | None, constrained: list[_Child],
                      triplets: list[GTriplet], var_type: str | None,
                      type_param: str | None) -> str | None:
        """``base`` joined with the nodes each constrained child's subtree reaches; None
        when there is neither."""
        parts = [self.reach(self.tree(child, t, triplets), None, t, child_is_tail,
                            restrict=base)
                 for child, t, child_is_tail in constrained]
        # A part whose single hop reaches only nodes of this symbol's type needs no type
        # filter (a child's set holds nodes of the child's type only).
        typed = [t.max_hops == 1 and self.lands_on(self.walks(t, child_is_tail),
                                                   self.q.symbols[child].node_type, var_type)
                 for child, t, child_is_tail in constrained]
        return self.join(base, parts, type_param, typed) if (base or parts) else None

    def check_neighbours(self, current: str, leaves: list[_Leaf],
                         var_type: str | None) -> str:
        """``current`` narrowed to the nodes with a neighbour for each single-hop leaf.

        EXISTS checks that stop at the first match, rather than listing every edge of a
        dense relation, grouping it, and joining it back. The neighbour's type is left
        unchecked when this symbol's type implies it."""
        checks = [{"source_type": None if self.lands_on(
                       walks, var_type, leaf_type, backwards=True)
                   else self.type_param(leaf_type),
                   "walks": self.walk_params(walks)}
                  for leaf_type, t, child_is_tail in leaves
                  for walks in [self.walks(t, child_is_tail)]]
        name = self.name("x")
        self.ctes.append({"name": name, "kind": "exists", "restrict": current,
                          "checks": checks, "adjacency": self.adjacency,
                          "presence": self.presence})
        return name

    def join_leaves(self, current: str | None, leaves: list[_Leaf], var_type: str | None,
                    type_param: str | None) -> str:
        """``current`` (None: no set yet) joined with the nodes each leaf's walk reaches."""
        leaf_parts, leaf_typed = [], []
        for leaf_type, t, child_is_tail in leaves:
            walks = self.walks(t, child_is_tail)
            # "any node of the leaf's type": unchecked when every such edge starts at one
            source_type = None if self.lands_on(walks, None, leaf_type, backwards=True) \
                else self.type_param(leaf_type)
            leaf_parts.append(self.reach(None, source_type, t, child_is_tail))
            leaf_typed.append(t.max_hops == 1 and self.lands_on(walks, leaf_type, var_type))
        return self.join(current, leaf_parts, type_param, leaf_typed)

    def type_param(self, node_type: str | None) -> str | None:
        return self.param("t", node_type) if node_type else None

    def join(self, base: str | None, parts: list[str], type_param: str | None,
             typed: list[bool] | None = None) -> str:
        """A symbol's set: ``base`` (already of the symbol's type) or, without one, the
        first part filtered by type (unless ``typed`` says a part holds only nodes of the
        type: that part goes first, unfiltered); joined with every other part at the
        largest level."""
        if base and not parts:
            return base
        if not base and typed and any(typed):
            i = typed.index(True)
            parts = [parts[i], *parts[:i], *parts[i + 1:]]
            type_param = None
        first = base or parts[0]
        rest = parts if base else parts[1:]
        joins = [{"name": p, "alias": f"j{i}"} for i, p in enumerate(rest)]
        levels = ["b.lvl"] + [f"{j['alias']}.lvl" for j in joins]
        name = self.name("s")
        self.ctes.append({"name": name, "kind": "combine", "base": first if base else None,
                          "parts": [first], "joins": joins, "levels": levels,
                          "type": None if base else type_param})
        return name


def compile_grounding(query: GroundingQuery, *, schema_directed: EdgeDirections | bool,
                      sql: Callable[..., list[str]], k: int = 20, l_max: int = 100,
                      adjacency: bool = False, endpoints: EdgeEndpoints | None = None,
                      presence: bool = False, rule: str = "reference") -> CompiledGrounding:
    """The grounding's statements; ``sql`` renders a template for the store that will run
    them (``store.sql``); ``adjacency``: the store has adjacency lists to walk
    (``Store.has_edge_lists``); ``endpoints``: which node types its edge types connect
    (``afr.ground.run.edge_endpoints``), so that implied type checks are left out;
    ``presence``: the store records which edges each node has (``edge_presence``,
    ``Store.has_edge_presence``) for the "has some neighbour" checks; ``rule``: the scope
    schedule (``afr.ground.schedule``)."""
    symbols, triplets = target_component(query.target, query.triplets)
    builder = _Builder(query, schema_directed, l_max, adjacency, endpoints, presence, rule)
    if is_tree(symbols, triplets):
        result = builder.tree(query.target, None, triplets)
        statements = sql("ground/tree.sql", ctes=builder.ctes, result=result,
                         max_level=False)
        return CompiledGrounding(statements, builder.params)
    return _compile_cyclic(builder, symbols, triplets, sql)


def _compile_cyclic(builder: _Builder, symbols: list[str], triplets: list[GTriplet],
                    sql: Callable[..., list[str]]) -> CompiledGrounding:
    tag = uuid.uuid4().hex[:10]
    tables = {var: f"afr_g{tag}_{i}" for i, var in enumerate(symbols)}
    compiled = CompiledGrounding([], builder.params, cyclic=True, tables=tables)
    for var in symbols:
        compiled.domains[var] = builder.domain(var)
    for t in triplets:
        # Refine the head from the tail's set, and the tail from the head's.
        for target_var, source_var, child_is_tail in ((t.head, t.tail, True),
                                                      (t.tail, t.head, False)):
            builder.ctes = []
            reach = builder.reach(tables[source_var], None, t, child_is_tail)
            compiled.steps.append({"table": tables[target_var], "ctes": builder.ctes,
                                   "reach": reach})
    compiled.statements = [
        s for var in symbols
        for s in sql("ground/fix_init.sql", table=tables[var], domain=compiled.domains[var])
    ] + [s for step in compiled.steps for s in sql("ground/fix_step.sql", **step)]
    return compiled
