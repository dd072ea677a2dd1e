"""The SKB's schema: node types, edge types and their prompt labels.

Read from ``skb.json`` when loading (``afr.load.skb_json``), and from the store's
``node_types`` / ``edge_types`` tables afterwards. Every type, edge or label name an LLM
writes is checked against this object before it may reach a SQL template.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any


@dataclass(frozen=True)
class NodeType:
    type: str
    label: str
    description: str = ""
    is_candidate: bool = True


@dataclass(frozen=True)
class EdgeType:
    type: str
    label: str
    description: str = ""
    source_type: str | None = None
    target_type: str | None = None
    #: Whether an arrow in a pattern is followed only along the stored direction (src →
    #: dst). None: as the SKB says (``SkbSchema.directed``).
    directed: bool | None = None


@dataclass
class SkbSchema:
    name: str
    description: str = ""
    directed: bool = False
    node_types: dict[str, NodeType] = field(default_factory=dict)
    edge_types: dict[str, EdgeType] = field(default_factory=dict)

    def edge_directed(self, edge_type: str) -> bool:
        """Whether edges of ``edge_type`` have a direction (its own flag, else the SKB's)."""
        t = self.edge_types.get(edge_type)
        return self.directed if t is None or t.directed is None else t.directed

    @property
    def candidate_types(self) -> list[str]:
        return [t.type for t in self.node_types.values() if t.is_candidate]

    # -- name resolution: what the LLM wrote → what the store knows ---------------------

    def node_type(self, written: str | None) -> str | None:
        """The node type a Cypher label names, or None if it names none."""
        if not written:
            return None
        key = _norm(written)
        for t in self.node_types.values():
            if key in (_norm(t.type), _norm(t.label)):
                return t.type
        return None

    def edge_type(self, written: str | None) -> str | None:
        """The edge type a relationship label names (its type or its prompt label)."""
        if not written:
            return None
        key = _norm(written)
        for t in self.edge_types.values():
            if key in (_norm(t.type), _norm(t.label)):
                return t.type
        return None

    def to_json(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "description": self.description,
            "directed": self.directed,
            "candidate_types": self.candidate_types,
            "node_types": {
                t.type: {"label": t.label, "description": t.description}
                for t in self.node_types.values()
            },
            "edge_types": {
                t.type: {
                    "label": t.label,
                    "description": t.description,
                    "source": t.source_type,
                    "target": t.target_type,
                    "directed": self.edge_directed(t.type),
                }
                for t in self.edge_types.values()
            },
        }


def _norm(name: str) -> str:
    # LLMs vary case, spacing and separators: "Gene/Protein", "gene_protein", "gene protein".
    return re.sub(r"[\s_\-/]+", "_", name.strip().strip("`'\"")).lower()
