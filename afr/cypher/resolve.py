"""Step 3b: check the parsed query graph against the SKB schema.

Labels become node types, relationship labels become edge types, and the graph is cut
to the target's connected component. Strict mode drops a triplet whose relationship
label is unknown and lets a symbol with an unknown label range over nothing typed;
lenient mode keeps both as "any". Nothing the LLM wrote reaches SQL unless it matched
the schema here.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal

from afr.cypher.model import (
    SUBSTRING_OPERATORS,
    Condition,
    QueryGraph,
    Triplet,
    name_search_strings,
    target_component,
)
from afr.store.skb import SkbSchema

Mode = Literal["strict", "lenient"]  # strict: symbols keep their node type


@dataclass
class ResolvedSymbol:
    var: str
    label: str | None  # as written
    node_type: str | None  # checked against the schema; None = any
    search_strings: list[str]  # name/title values: a constant when non-empty
    conditions: list[Condition]  # attribute conditions other than the name
    # The name conditions that are substring matches (``name CONTAINS 'x'``, STARTS WITH,
    # ENDS WITH): filters in step 4 when some node's name or alias satisfies them.
    name_patterns: list[Condition] = field(default_factory=list)
    # A related target's name conditions: they narrow its grounded answers (step 6), they
    # do not make it a constant (``_keep_target_variable``).
    target_names: list[Condition] = field(default_factory=list)

    @property
    def is_constant(self) -> bool:
        return bool(self.search_strings)


@dataclass
class ResolvedTriplet:
    head: str
    edge_label: str | None
    edge_type: str | None  # None = any relation
    tail: str
    directed: bool
    min_hops: int = 1
    max_hops: int = 1
    # The other edge types of ``[:a|b]`` (schema names), when the types are walked.
    alternatives: tuple[str, ...] = ()


@dataclass
class ResolvedQuery:
    target: str | None
    symbols: dict[str, ResolvedSymbol] = field(default_factory=dict)
    triplets: list[ResolvedTriplet] = field(default_factory=list)
    dropped: list[str] = field(default_factory=list)
    # what was kept but read differently than written (an arrow over an undirected relation)
    notes: list[str] = field(default_factory=list)

    @property
    def target_type(self) -> str | None:
        if self.target and self.target in self.symbols:
            return self.symbols[self.target].node_type
        return None


def _name_conditions(conditions: list[Condition]) -> list[Condition]:
    return [c for c in conditions if name_search_strings(c)]


def _search_strings(conditions: list[Condition]
                    ) -> tuple[list[str], list[Condition], list[Condition]]:
    """(search strings, other conditions, substring name conditions)."""
    names: list[str] = []
    rest: list[Condition] = []
    patterns: list[Condition] = []
    for c in conditions:
        found = name_search_strings(c)
        if found:
            names += found
            if c.op in SUBSTRING_OPERATORS and isinstance(c.value, str):
                patterns.append(c)
        else:
            rest.append(c)
    return names, rest, patterns


def resolve(graph: QueryGraph, schema: SkbSchema, *, mode: Mode = "strict",
            use_edge_types: bool = True, target_type: str | None = None) -> ResolvedQuery:
    out = ResolvedQuery(target=graph.target)
    out.dropped += [f"{d.text} ({d.reason})" for d in graph.dropped]
    for var, sym in graph.symbols.items():
        node_type = schema.node_type(sym.label)
        if sym.label and node_type is None:
            out.dropped.append(f"label {sym.label!r} of {var} is not a node type of this SKB")
        names, conditions, patterns = _search_strings(sym.conditions)
        if mode == "lenient":
            node_type = None
        out.symbols[var] = ResolvedSymbol(var, sym.label, node_type, names, conditions,
                                          patterns)
    # The target's type: the step-1 prediction wins when the Cypher's label is missing.
    if graph.target in out.symbols and target_type and mode == "strict":
        target = out.symbols[graph.target]
        if target.node_type is None:
            target.node_type = target_type
    for t in graph.triplets:
        walked = _walked_types(t, schema, mode, out.dropped)
        if walked is None:
            continue
        if not use_edge_types:
            walked = ()
        undirected = [e for e in walked or (None,) if not _has_direction(schema, e)]
        if t.directed and undirected:
            what = (f"{', '.join(undirected)} {'is' if len(undirected) == 1 else 'are'} "
                    "undirected" if walked else "not every relation is directed")
            out.notes.append(f"arrow of {_written(t, arrow=True)} ignored: {what} in this "
                             "SKB, so edges are read both ways")
        out.triplets.append(ResolvedTriplet(
            t.head, t.edge, walked[0] if walked else None, t.tail, t.directed, t.min_hops,
            t.max_hops, walked[1:]))
    _keep_target_component(out)
    _keep_target_variable(out, graph)
    return out


def _walked_types(t: Triplet, schema: SkbSchema, mode: Mode, dropped: list[str]
                  ) -> tuple[str, ...] | None:
    """The schema's edge types a triplet's relationship names (empty: any relation); None
    when, in strict mode, it names none the SKB has (the triplet is dropped). A type of
    ``[:a|b]`` the SKB lacks is dropped from the alternatives; in lenient mode an unknown
    type makes the relationship any relation."""
    named = [(e, schema.edge_type(e)) for e in t.edges]
    known = tuple(dict.fromkeys(edge_type for _, edge_type in named if edge_type))
    unknown = [e for e, edge_type in named if edge_type is None]
    if not unknown:
        return known
    names = ", ".join(repr(e) for e in unknown)
    if mode != "strict":
        dropped.append(f"relation {names} unknown: matched as any relation")
        return ()
    if not known:
        dropped.append(f"relation {names} is not an edge type of this SKB: "
                       f"{_written(t)} dropped")
        return None
    dropped.append(f"relation {names} is not an edge type of this SKB: {_written(t)} "
                   f"keeps {', '.join(known)}")
    return known


def _written(t: Triplet, *, arrow: bool = False) -> str:
    return f"({t.head})-[:{'|'.join(t.edges)}]-{'>' if arrow else ''}({t.tail})"


def _keep_target_variable(query: ResolvedQuery, graph: QueryGraph) -> None:
    """A target that a triplet relates to other symbols stays a variable, whatever name or
    title condition it carries (``(a:author {name: "X"})-[:writes]->(y:paper) WHERE
    y.title CONTAINS "failure"``): its answers are what the relations ground, and the
    name only narrows them. Made a constant, it would be searched by that name like a
    named entity, and papers of similarly named authors would come first. A target with no
    triplet is the whole query: its name is what the question asks for, and it stays a
    constant."""
    target = query.symbols.get(query.target or "")
    if target is None or not target.search_strings or not query.triplets:
        return
    target.target_names = _name_conditions(graph.symbols[target.var].conditions)
    target.search_strings, target.name_patterns = [], []


def _has_direction(schema: SkbSchema, edge_type: str | None) -> bool:
    """Whether an arrow over ``edge_type`` (None: any relation) is followed — the rule of
    ``afr.ground.EdgeDirections``: any relation only when every edge type is directed."""
    if edge_type is not None:
        return schema.edge_directed(edge_type)
    types = list(schema.edge_types)
    return all(schema.edge_directed(t) for t in types) if types else schema.directed


def _keep_target_component(query: ResolvedQuery) -> None:
    """Only symbols connected to the target constrain it; the rest are dropped."""
    if query.target is None or query.target not in query.symbols:
        return
    connected, query.triplets = target_component(query.target, query.triplets)
    for var in list(query.symbols):
        if var not in connected:
            query.dropped.append(f"{var} is not connected to the target {query.target}: ignored")
            del query.symbols[var]
