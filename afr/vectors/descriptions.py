"""The reranker's focused node descriptions: short, and first what the question asks about.

A listwise rerank prompt with the capped ``doc_rel`` documents of 20 answers ran to ~40K
characters on a real SKB (issue 27): every attribute, and second-hop "via" blocks listing
the neighbours of hubs. The focused form keeps what a question's Cypher relies on and cuts
the rest:

- one-hop relations, at most ``caps.one_hop`` names for a relation the query walks and
  ``caps.others`` for any other (5 and 3 by default), the nodes the query's named constants grounded to listed
  first (so a capped list still names them), the rest counted ("and N more");
- the relations and the attributes the query names first, in the query's order;
- a second hop only along the query's own two-hop paths, and only the hops that reach one
  of its constants' nodes ("via genus Corvus:" / "is a member of → Corvidae");
- the text cut first when a description runs over ``caps.document``.

Without a focus (methods that write no Cypher) the same caps apply in a generic order.
The descriptions keep the ``doc_rel`` layout ("relations:" under the base document), so
step 8's shrinking works on them unchanged.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass

from afr.store.base import Store
from afr.vectors.documents import (
    DocumentCaps,
    NodeInfo,
    RelationGroup,
    base_document,
    fetch_nodes,
    relation_line,
)

VIA_LINES = 3  # second-hop lines per path and candidate
SHORTEST_TEXT = 200  # what a long description keeps of its text, at least


@dataclass(frozen=True)
class Hop:
    """One step of a query's path: a relation, walked as its source ("out"), as its
    target ("in"), or either way ("any": undirected)."""

    edge_type: str
    direction: str = "any"

    def matches(self, group: RelationGroup) -> bool:
        return group.edge_type == self.edge_type and self.direction in ("any", group.direction)


@dataclass(frozen=True)
class Focus:
    """What a question's query names, for its answers' descriptions to state first."""

    relations: tuple[Hop, ...] = ()  # the relations at the answer, in the query's order
    attributes: tuple[str, ...] = ()  # the answer's attributes the conditions test
    nodes: tuple[int, ...] = ()  # the nodes its named constants grounded to, best first
    paths: tuple[tuple[Hop, Hop], ...] = ()  # answer -hop- mid -hop- constant

    def rank(self, group: RelationGroup) -> int:
        """The group's place: the query's relations first, in its order."""
        for i, hop in enumerate(self.relations):
            if hop.matches(group):
                return i
        return len(self.relations)


NO_FOCUS = Focus()


@dataclass(frozen=True)
class FocusedGroup:
    """A relation group of the focused form, with the second hops shown under it."""

    group: RelationGroup
    focused: bool
    via: tuple[tuple[str, RelationGroup], ...] = ()  # (mid's name, its hop to the constant)


def fetch_first_relations(store: Store, ids: Sequence[int], cap: int,
                          first: Sequence[int]) -> dict[int, list[RelationGroup]]:
    """One-hop relation groups of ``ids``, ``cap`` names each, the nodes in ``first``
    named first, in their order."""
    out: dict[int, list[RelationGroup]] = defaultdict(list)
    if not ids:
        return out
    rows = store.run_tuples("docs/relations_first.sql", {
        "ids": [int(i) for i in ids], "cap": cap, **_ranked(first)})
    for node, etype, direction, names, total, first_other in rows:
        out[node].append(RelationGroup(etype, direction, list(names), total, first_other))
    return out


def fetch_path_hops(store: Store, ids: Sequence[int], path: tuple[Hop, Hop], cap: int,
                    first: Sequence[int]) -> dict[int, list[tuple[str, RelationGroup]]]:
    """For each node of ``ids``: its neighbours along ``path``'s first hop that reach a
    node of ``first`` along its second, as (the neighbour's name, that second hop)."""
    out: dict[int, list[tuple[str, RelationGroup]]] = defaultdict(list)
    if not ids or not first:
        return out
    near, far = path
    rows = store.run_tuples("docs/path_hits.sql", {
        "ids": [int(i) for i in ids], **_ranked(first), "cap": cap,
        "type1": near.edge_type, "dir1": near.direction,
        "type2": far.edge_type, "dir2": far.direction})
    for node, mid_name, direction, names, total in rows:
        out[node].append((str(mid_name),
                          RelationGroup(far.edge_type, direction, list(names), total, 0)))
    return out


def _ranked(first: Sequence[int]) -> dict[str, list[int]]:
    """``first`` as the SQL reads it: ids and their ranks (a node's best rank)."""
    ids = list(dict.fromkeys(int(i) for i in first))
    return {"first": ids, "ranks": list(range(len(ids)))}


class DescriptionBuilder:
    """Focused descriptions of one question's candidates (``describe``)."""

    def __init__(self, store: Store, caps: DocumentCaps, focus: Focus = NO_FOCUS) -> None:
        schema = store.skb_schema()
        self.store, self.caps, self.focus = store, caps, focus
        self.type_labels = {t.type: t.label for t in schema.node_types.values()}
        self.edge_labels = {t.type: t.label for t in schema.edge_types.values()}

    def base(self, ids: Sequence[int]) -> dict[int, str]:
        """Without relations: name, type, aliases, the focus's attributes first, text."""
        nodes = fetch_nodes(self.store, ids)
        return {i: self._base(n, self.caps.text) for i, n in nodes.items()}

    def build(self, ids: Sequence[int]) -> dict[int, str]:
        """With relations, as the module describes."""
        nodes = fetch_nodes(self.store, ids)
        groups = self.groups(list(nodes))
        out = {}
        for node_id, node in nodes.items():
            lines = self.relation_lines(groups.get(node_id, []))
            out[node_id] = self._fit(node, lines)
        return out

    def groups(self, ids: list[int]) -> dict[int, list[FocusedGroup]]:
        """Each node's relation groups, the query's first, each with its second hops."""
        caps, focus = self.caps, self.focus
        widest = max(caps.one_hop, caps.others if caps.others is not None else 0)
        fetched = fetch_first_relations(self.store, ids, widest, focus.nodes)
        via: dict[tuple[int, Hop], list[tuple[str, RelationGroup]]] = defaultdict(list)
        for path in focus.paths:
            for node, hops in fetch_path_hops(self.store, ids, path, caps.two_hop,
                                              focus.nodes).items():
                via[(node, path[0])] += hops
        out: dict[int, list[FocusedGroup]] = {}
        for node_id, node_groups in fetched.items():
            ordered = sorted(node_groups, key=focus.rank)  # stable: the SQL's order after
            out[node_id] = [self._focused(node_id, g, via) for g in ordered]
        return out

    def _focused(self, node_id: int, group: RelationGroup,
                 via: dict[tuple[int, Hop], list[tuple[str, RelationGroup]]]) -> FocusedGroup:
        focused = self.focus.rank(group) < len(self.focus.relations)
        cap = self.caps.one_hop if focused or self.caps.others is None else self.caps.others
        capped = RelationGroup(group.edge_type, group.direction, group.names[:cap],
                               group.total, group.first_other)
        hops = [h for hop in self.focus.relations if hop.matches(group)
                for h in via.get((node_id, hop), [])]
        return FocusedGroup(capped, focused, tuple(hops[:VIA_LINES]))

    def relation_lines(self, groups: list[FocusedGroup]) -> list[str]:
        lines = []
        for g in groups:
            lines.append(relation_line(g.group, self.edge_labels, "  "))
            for mid, hop in g.via:
                lines.append(f"  via {mid}:")
                lines.append(relation_line(hop, self.edge_labels, "    "))
        return lines

    def _base(self, node: NodeInfo, text_cap: int | None) -> str:
        return base_document(node, self.type_labels, text_cap, self.focus.attributes)

    def _fit(self, node: NodeInfo, relation_lines: list[str]) -> str:
        """Base document and relations within ``caps.document``: the text gives way
        first (down to ``SHORTEST_TEXT`` characters), then the last relations."""
        relations = "\n".join(["relations:", *relation_lines]) if relation_lines else ""
        cap = self.caps.document
        text = self._base(node, self.caps.text)
        if cap is not None and len(text) + len(relations) + 1 > cap and node.text:
            over = len(text) + len(relations) + 1 - cap
            shown = len(node.text[:self.caps.text])
            text = self._base(node, max(SHORTEST_TEXT, shown - over))
        doc = f"{text}\n{relations}" if relations else text
        return doc if cap is None else doc[:cap]


def describe(store: Store, ids: Sequence[int], caps: DocumentCaps, focus: Focus = NO_FOCUS,
             *, relations: bool = True) -> dict[int, str]:
    """Focused descriptions of ``ids`` (``relations=False``: the base documents they
    start with)."""
    builder = DescriptionBuilder(store, caps, focus)
    return builder.build(ids) if relations else builder.base(ids)
