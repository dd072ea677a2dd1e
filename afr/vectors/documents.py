"""Node documents: the text that represents a node to embedders and to the reranker.

Two variants, as the paper found they serve different steps:

- ``doc``: name, type, aliases, attributes and text — no relations (steps 4 and 6);
- ``doc_rel``: ``doc`` plus 1-hop relations grouped by relation, and the relations of
  neighbours reached through a relation the node has exactly one of (a 1-1 or n-1 hop:
  a product's brand, a paper's venue) — capped, so hub nodes cannot explode it (step 7,
  and the reranker's node descriptions).

The reranker may ask for the paper's descriptions instead (``rerank.documents =
"paper"``, ``PAPER_CAPS``): every 1-hop relation (up to a guard of 1,000 names per
relation) and the relations reached through relation *types* that are 1-1 or n-1 — every
node has at most one of them — with no cut of the text or the document.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from afr.store.base import Store

ONE_HOP_CAP = 10  # neighbour names listed per relation group
TWO_HOP_CAP = 5
MAX_TEXT_CHARS = 2000
MAX_DOC_CHARS = 6000


@dataclass(frozen=True)
class DocumentCaps:
    """How much of a node a ``doc_rel`` document shows (None: no cut)."""

    one_hop: int = ONE_HOP_CAP  # neighbour names per relation group
    two_hop: int = TWO_HOP_CAP  # … per group of a second hop
    text: int | None = MAX_TEXT_CHARS
    document: int | None = MAX_DOC_CHARS
    # second hops through a relation the node has one of ("node"), through a relation
    # type every node has at most one of ("type": the paper's 1-1 / n-1 relation types),
    # or only along the question's query, to its constants ("query": the reranker's
    # focused descriptions, ``afr.vectors.descriptions``)
    second_hops: str = "node"
    others: int | None = None  # names per relation group the query does not walk


CAPPED = DocumentCaps()
NAME_GUARD = 1000  # the paper's descriptions list every neighbour, up to this many
PAPER_CAPS = DocumentCaps(NAME_GUARD, NAME_GUARD, None, None, "type")
# measured on the WordNet and a synthetic set (bench/rerank_tokens.py): 5 names for a
# relation the query walks (its constants' nodes first) keep every fact 10 kept
FOCUSED_CAPS = DocumentCaps(5, 5, 1000, 3000, "query", others=3)
#: The reranker's descriptions by ``[rerank] documents``.
RERANK_CAPS = {"focused": FOCUSED_CAPS, "capped": CAPPED, "paper": PAPER_CAPS}

#: Bumped whenever the documents' text changes for the same data: stores record the
#: version their vectors were built from (the demo store is rebuilt when it differs).
DOCUMENTS_VERSION = "2"


@dataclass
class RelationGroup:
    edge_type: str
    direction: str  # "out" (node is the source) or "in"
    names: list[str]
    total: int
    first_other: int


@dataclass
class NodeInfo:
    id: int
    type: str
    name: str | None
    text: str | None
    attrs: dict[str, Any]
    aliases: list[str]
    relations: list[RelationGroup] = field(default_factory=list)


def fetch_nodes(store: Store, ids: Sequence[int]) -> dict[int, NodeInfo]:
    rows = store.run_tuples("docs/nodes.sql", {"ids": [int(i) for i in ids]})
    out: dict[int, NodeInfo] = {}
    for node_id, ntype, name, text, attrs, aliases in rows:
        out[int(node_id)] = NodeInfo(int(node_id), ntype, name, text, attrs or {},
                                     list(aliases or []))
    return out


def fetch_relations(store: Store, ids: Sequence[int], cap: int) -> dict[int, list[RelationGroup]]:
    out: dict[int, list[RelationGroup]] = defaultdict(list)
    if not ids:
        return out
    rows = store.run_tuples("docs/relations.sql", {"ids": [int(i) for i in ids], "cap": cap})
    # both drivers return ints and lists already: no per-row conversions (30K rows a batch)
    for node, etype, direction, names, total, first_other, _other_type in rows:
        out[node].append(RelationGroup(etype, direction, names, total, first_other))
    return out


def _relation_label(labels: dict[str, str], group: RelationGroup) -> str:
    # Arrows keep the stored direction readable: "writes → X" vs "writes ← Y".
    label = labels.get(group.edge_type, group.edge_type)
    return f"{label} →" if group.direction == "out" else f"{label} ←"


def _format_value(value: Any) -> str:
    if isinstance(value, list):
        return "; ".join(_format_value(v) for v in value[:20])
    if isinstance(value, dict):
        return ", ".join(f"{k}: {_format_value(value[k])}" for k in sorted(value)[:20])
    return str(value)


def base_document(node: NodeInfo, type_labels: dict[str, str],
                  text_cap: int | None = MAX_TEXT_CHARS, first: Sequence[str] = ()) -> str:
    """Name, type, aliases, attributes and text; the attributes named in ``first`` lead
    (a question's conditions: the reranker's focused descriptions)."""
    lines = [f"{node.name or '(unnamed)'} ({type_labels.get(node.type, node.type)})"]
    if node.aliases:
        lines.append("also known as: " + ", ".join(node.aliases[:10]))
    # Keys in sorted order, not as stored: PostgreSQL's JSONB reorders them and DuckDB
    # keeps them as written, and the same SKB must give the same documents on both.
    leading = [key for key in dict.fromkeys(first) if key in node.attrs]
    for key in leading + [key for key in sorted(node.attrs) if key not in leading]:
        rendered = _format_value(node.attrs[key])
        if rendered:
            lines.append(f"{key}: {rendered[:500]}")
    if node.text:
        lines.append(node.text[:text_cap])
    return "\n".join(lines)


def relation_line(group: RelationGroup, labels: dict[str, str], indent: str) -> str:
    """``  label → a, b, c (and 7 more)``: a relation group, its names as capped."""
    more = f" (and {group.total - len(group.names)} more)" if group.total > len(group.names) \
        else ""
    return f"{indent}{_relation_label(labels, group)} {', '.join(group.names)}{more}"


def _relations_block(groups: list[RelationGroup], labels: dict[str, str], indent: str) -> list[str]:
    return [relation_line(g, labels, indent) for g in groups]


TWO_HOP_CACHE_NODES = 100_000


def build_documents(store: Store, ids: Sequence[int], variant: str = "doc", *,
                    two_hop_cache: dict[int, list[RelationGroup]] | None = None,
                    caps: DocumentCaps = CAPPED) -> dict[int, str]:
    """Documents for ``ids`` in the given variant (``doc`` or ``doc_rel``).

    ``two_hop_cache`` carries second-hop relation groups from one batch to the next: the
    same few hubs (a brand, a venue) are the single neighbour of thousands of nodes, and
    their relations would otherwise be read and sorted again for every batch."""
    return DocumentBuilder(store, variant, two_hop_cache=two_hop_cache, caps=caps).build(ids)


def single_relation_types(store: Store) -> frozenset[tuple[str, str]]:
    """The (relation, direction) pairs no node has more than one of: through these, a
    node's neighbour is a 1-1 or n-1 hop for every node (one scan of the edges, once per
    store and process)."""
    return store.fact("single_relation_types", lambda: frozenset(
        (str(t), str(d)) for t, d in store.run_tuples("docs/single_relations.sql", {})))


class DocumentBuilder:
    """Builds documents of one variant batch after batch (``afr embed``): the schema's
    labels are read once, and second hops are cached across batches."""

    def __init__(self, store: Store, variant: str = "doc", *,
                 two_hop_cache: dict[int, list[RelationGroup]] | None = None,
                 caps: DocumentCaps = CAPPED) -> None:
        schema = store.skb_schema()
        self.store = store
        self.variant = variant
        self.type_labels = {t.type: t.label for t in schema.node_types.values()}
        self.edge_labels = {t.type: t.label for t in schema.edge_types.values()}
        self.two_hop_cache = {} if two_hop_cache is None else two_hop_cache
        self.caps = caps
        self.single_types = single_relation_types(store) \
            if caps.second_hops == "type" and variant != "doc" else frozenset()

    def build(self, ids: Sequence[int]) -> dict[int, str]:
        """Documents for ``ids``, by id (ids without a node are left out)."""
        store, two_hop_cache = self.store, self.two_hop_cache
        type_labels, edge_labels = self.type_labels, self.edge_labels
        nodes = fetch_nodes(store, ids)
        caps = self.caps
        docs = {i: base_document(n, type_labels, caps.text) for i, n in nodes.items()}
        if self.variant == "doc":
            return docs
        one_hop = fetch_relations(store, list(nodes), caps.one_hop)
        # Second hops only through relations the node has exactly one of (1-1 / n-1), or
        # through the relation types every node has at most one of.
        single = {(i, g.edge_type, g.direction): g.first_other
                  for i, groups in one_hop.items() for g in groups
                  if (g.edge_type, g.direction) in self.single_types
                  or caps.second_hops == "node" and g.total == 1}
        wanted = sorted(set(single.values()))
        missing = [i for i in wanted if i not in two_hop_cache]
        fetched = fetch_relations(store, missing, caps.two_hop)
        two_hop = {i: two_hop_cache[i] if i in two_hop_cache else fetched.get(i, [])
                   for i in wanted}
        # (read before a full cache is emptied: the cached hops this batch uses stay)
        if len(two_hop_cache) + len(missing) > TWO_HOP_CACHE_NODES:
            two_hop_cache.clear()
        for i in missing:
            two_hop_cache[i] = fetched.get(i, [])
        for node_id, doc in docs.items():
            groups = one_hop.get(node_id, [])
            if not groups:
                continue
            lines = [doc, "relations:"]
            lines += _relations_block(groups, edge_labels, "  ")
            for g in groups:
                other = single.get((node_id, g.edge_type, g.direction))
                if other is None:
                    continue
                # Skip the way back to this node: it says nothing new.
                onward = [h for h in two_hop.get(other, [])
                          if not (h.edge_type == g.edge_type and h.total == 1)]
                if onward:
                    lines.append(f"  via {g.names[0]}:")
                    lines += _relations_block(onward, edge_labels, "    ")
            docs[node_id] = "\n".join(lines)[:caps.document]
        return docs
