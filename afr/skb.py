"""The SKB's schema: node types, edge types and their prompt labels.

Read from ``skb.json`` when loading, and from the store's ``node_types`` / ``edge_types``
tables afterwards. Every type, edge or label name an LLM writes is checked against this
object before it may reach a SQL template.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from afr.errors import LoadError, SchemaError

# Type names end up as values in SQL, never as identifiers, but we still keep them sane.
_TYPE_NAME = re.compile(r"^[^\x00-\x1f]{1,200}$")


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


@dataclass
class SkbSchema:
    name: str
    description: str = ""
    directed: bool = False
    node_types: dict[str, NodeType] = field(default_factory=dict)
    edge_types: dict[str, EdgeType] = field(default_factory=dict)

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

    def require_node_type(self, name: str) -> str:
        found = self.node_type(name)
        if found is None:
            known = ", ".join(sorted(self.node_types))
            raise SchemaError(f"unknown node type {name!r}; known types: {known}")
        return found

    def require_edge_type(self, name: str) -> str:
        found = self.edge_type(name)
        if found is None:
            known = ", ".join(sorted(self.edge_types))
            raise SchemaError(f"unknown edge type {name!r}; known types: {known}")
        return found

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
                }
                for t in self.edge_types.values()
            },
        }


def _norm(name: str) -> str:
    # LLMs vary case, spacing and separators: "Gene/Protein", "gene_protein", "gene protein".
    return re.sub(r"[\s_\-/]+", "_", name.strip().strip("`'\"")).lower()


def parse_skb_json(data: Any, source: str = "skb.json") -> SkbSchema:
    """Validate the ``skb.json`` document and build the schema (LoadError when broken)."""
    if not isinstance(data, dict):
        raise LoadError(f"{source}: expected a JSON object at the top level")
    name = data.get("name")
    if not isinstance(name, str) or not name.strip():
        raise LoadError(f"{source}: 'name' is required and must be a non-empty string")
    raw_nodes = data.get("node_types")
    if not isinstance(raw_nodes, dict) or not raw_nodes:
        raise LoadError(f"{source}: 'node_types' must be a non-empty object")
    raw_edges = data.get("edge_types", {})
    if not isinstance(raw_edges, dict):
        raise LoadError(f"{source}: 'edge_types' must be an object")
    candidates = data.get("candidate_types")
    if candidates is not None and (
        not isinstance(candidates, list) or not all(isinstance(c, str) for c in candidates)
    ):
        raise LoadError(f"{source}: 'candidate_types' must be a list of node type names")
    unknown = [c for c in candidates or [] if c not in raw_nodes]
    if unknown:
        raise LoadError(f"{source}: candidate_types names unknown node types: {unknown[:5]}")
    directed = data.get("directed", False)
    if not isinstance(directed, bool):
        raise LoadError(f"{source}: 'directed' must be true or false")

    node_types: dict[str, NodeType] = {}
    for tname, spec in raw_nodes.items():
        _check_name(tname, source, "node type")
        spec = spec if isinstance(spec, dict) else {}
        node_types[tname] = NodeType(
            type=tname,
            label=str(spec.get("label") or tname),
            description=str(spec.get("description") or ""),
            is_candidate=candidates is None or tname in candidates,
        )
    edge_types: dict[str, EdgeType] = {}
    for ename, spec in raw_edges.items():
        _check_name(ename, source, "edge type")
        spec = spec if isinstance(spec, dict) else {}
        src, dst = spec.get("source"), spec.get("target")
        for end in (src, dst):
            if end is not None and end not in node_types:
                raise LoadError(
                    f"{source}: edge type {ename!r} refers to unknown node type {end!r}"
                )
        edge_types[ename] = EdgeType(
            type=ename,
            label=str(spec.get("label") or ename),
            description=str(spec.get("description") or ""),
            source_type=src,
            target_type=dst,
        )
    labels = [t.label for t in edge_types.values()]
    dup = sorted({x for x in labels if labels.count(x) > 1})
    if dup:
        raise LoadError(f"{source}: edge type labels must be unique; repeated: {dup[:5]}")
    return SkbSchema(
        name=name.strip(),
        description=str(data.get("description") or ""),
        directed=directed,
        node_types=node_types,
        edge_types=edge_types,
    )


def read_skb_json(path: Path) -> SkbSchema:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise LoadError(f"{path}: not found (an SKB directory needs skb.json)") from None
    except (json.JSONDecodeError, UnicodeDecodeError) as exc:
        raise LoadError(f"{path}: not valid JSON ({exc})") from None
    return parse_skb_json(data, str(path))


def _check_name(name: str, source: str, what: str) -> None:
    if not isinstance(name, str) or not _TYPE_NAME.match(name):
        raise SchemaError(f"{source}: invalid {what} name {name!r}")
