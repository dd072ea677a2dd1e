"""KAR K2–K5: link the entities to nodes, walk their neighbourhoods, keep the neighbours
whose documents are closest to the question, and render the kept paths as triples.

- K2: each parsed entity is linked to its top-1 node by vector search over the relation-free
  ``doc`` vectors (of its type, when the type is known); the question itself is linked to
  its top ``m_q`` nodes over the answer types with ``doc_rel`` (the index of the final search).
- K3 + K4: all nodes within ``hops`` hops of every linked node come from one statement
  (``sql/kar/neighbours.sql``, with its hub guard); they are scored by the similarity of
  their ``doc`` vector to the question — one exact search restricted to their ids, the
  same search steps 4 and 6 use (in-memory matrices where a store has them, else SQL) —
  and the best ``k`` are kept per entity.
- K5: one connecting path per kept neighbour (``sql/kar/paths.sql``), written as
  ``name —[relation]→ name`` or ``name —[r1]→ middle —[r2]→ name``.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from afr.embed import Embedder
from afr.store.base import Store
from afr.store.skb import SkbSchema
from afr.vectors.search import query_vector, search

TIE_DECIMALS = 6


@dataclass
class LinkedEntity:
    """An element of E_q: the question itself (``entity`` 0) or a named entity, and the
    node it was linked to (None when nothing was found)."""

    entity: int
    source: str  # question | llm | offline
    text: str
    node_type: str | None
    node_id: int | None
    score: float | None
    # How far the graph-PRF expansion may lean on this link, 0 to 1 (``run._trust``):
    # only the offline expansion reads it; the LLM's judges the triples itself.
    trust: float = 1.0
    why: str = ""  # the reason for ``trust``, for --explain


@dataclass
class Neighbour:
    entity: int  # LinkedEntity.entity
    head: int  # the linked node
    node_id: int
    hop: int
    score: float  # similarity of the neighbour's doc vector to the question


@dataclass
class Triple:
    entity: int
    rank: int  # 1 = the entity's neighbour most similar to the question
    head: int
    r1: str
    forward1: bool
    mid: int | None
    r2: str | None
    forward2: bool | None
    tail: int
    hop: int
    score: float
    rendered: str = ""

    def to_dict(self) -> dict:
        return dict(self.__dict__)


def link_entity(store: Store, embedder: Embedder, text: str, node_type: str | None
                ) -> tuple[int, float] | None:
    """K2 for a parsed entity: its top-1 node over ``doc`` (of its type when known)."""
    found = search(store, "doc", query_vector(store, embedder, text), 1,
                   types=[node_type] if node_type else None)
    return found[0] if found else None


def link_question(store: Store, qvec: np.ndarray, types: Sequence[str], m_q: int
                  ) -> list[tuple[int, float]]:
    """K2 for the question as a pseudo-entity: its top ``m_q`` nodes over ``doc_rel``."""
    return search(store, "doc_rel", qvec, m_q, types=list(types) or None)


@dataclass
class Neighbourhoods:
    """K3's result: node → [(neighbour, hop)] for every start node, and the starts whose
    second hop the hub guard cut."""

    reached: dict[int, list[tuple[int, int]]]
    guarded: set[int]


def neighbourhoods(store: Store, starts: Sequence[int], *, hops: int, max_neighbours: int,
                   max_mid_degree: int) -> Neighbourhoods:
    """K3: every node within ``hops`` (1 or 2) of each start, in one statement."""
    out = Neighbourhoods({int(s): [] for s in starts}, set())
    if not starts:
        return out
    rows = store.run("kar/neighbours.sql",
                     {"starts": sorted({int(s) for s in starts}),
                      "max_neighbours": int(max_neighbours),
                      "max_mid_degree": int(max_mid_degree)}, hops=int(hops))
    for start, nb, hop, guarded in rows:
        out.reached[int(start)].append((int(nb), int(hop)))
        if guarded:
            out.guarded.add(int(start))
    return out


def keep_closest(store: Store, qvec: np.ndarray, linked: Sequence[LinkedEntity],
                 hoods: Neighbourhoods, k: int) -> list[Neighbour]:
    """K4 (document-based relation filtering): per linked entity, the ``k`` neighbours
    whose ``doc`` vectors are most similar to the question (ties: nearer hop, then id).
    One exact search over all neighbours' ids scores them; a neighbour without a vector
    cannot be scored and is left out."""
    union = sorted({nb for nbs in hoods.reached.values() for nb, _ in nbs})
    if not union or k <= 0:
        return []
    scores = dict(search(store, "doc", qvec, len(union), ids=union))
    kept: list[Neighbour] = []
    for ent in linked:
        if ent.node_id is None:
            continue
        scored = [(nb, hop, scores[nb]) for nb, hop in hoods.reached.get(ent.node_id, [])
                  if nb in scores]
        # Scores equal to 6 decimals are ties (broken by hop, then id): the stores compute
        # the same similarity with float noise in the last bits, and must keep the same k.
        scored.sort(key=lambda r: (-round(r[2], TIE_DECIMALS), r[1], r[0]))
        kept += [Neighbour(ent.entity, ent.node_id, nb, hop, score)
                 for nb, hop, score in scored[:k]]
    return kept


def connect(store: Store, kept: Sequence[Neighbour]) -> list[Triple]:
    """K5: one path per kept neighbour (the same head–tail pair of two entities is kept
    once, for the first)."""
    pairs = sorted({(n.head, n.node_id) for n in kept})
    if not pairs:
        return []
    rows = store.run("kar/paths.sql", {"starts": [p[0] for p in pairs],
                                        "ends": [p[1] for p in pairs]})
    paths = {(int(r.start), int(r.nb)): r for r in rows}
    triples: list[Triple] = []
    seen: set[tuple[int, int]] = set()
    rank_of: dict[int, int] = {}
    for n in kept:
        path = paths.get((n.head, n.node_id))
        if path is None or (n.head, n.node_id) in seen:
            continue
        seen.add((n.head, n.node_id))
        rank_of[n.entity] = rank_of.get(n.entity, 0) + 1
        triples.append(Triple(
            n.entity, rank_of[n.entity], n.head, path.r1, bool(path.forward1),
            None if path.mid is None else int(path.mid), path.r2,
            None if path.forward2 is None else bool(path.forward2), n.node_id,
            int(path.hop), n.score))
    return triples


def _step(label: str, forward: bool) -> str:
    return f" —[{label}]→ " if forward else f" ←[{label}]— "


def render_triple(t: Triple, names: dict[int, str], schema: SkbSchema) -> str:
    """``head —[r1]→ (mid —[r2]→) tail`` with node names and relation labels; an arrow
    points the way the edge is stored."""
    def label(edge_type: str) -> str:
        e = schema.edge_types.get(edge_type)
        return e.label if e else edge_type

    text = names.get(t.head, str(t.head)) + _step(label(t.r1), t.forward1)
    if t.mid is not None and t.r2 is not None:
        text += names.get(t.mid, str(t.mid)) + _step(label(t.r2), bool(t.forward2))
    return text + names.get(t.tail, str(t.tail))


def plain_relation(t: Triple, names: dict[int, str], schema: SkbSchema) -> str:
    """The path in words, for the offline expansion: ``head r1 (mid r2) tail``."""
    def words(edge_type: str) -> str:
        e = schema.edge_types.get(edge_type)
        return (e.label if e else edge_type).replace("_", " ")

    parts = [names.get(t.head, ""), words(t.r1)]
    if t.mid is not None and t.r2 is not None:
        parts += [names.get(t.mid, ""), words(t.r2)]
    parts.append(names.get(t.tail, ""))
    return " ".join(p for p in parts if p)
