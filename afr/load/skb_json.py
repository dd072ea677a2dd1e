"""``skb.json``: the SKB's schema file, validated into an ``SkbSchema``."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

from afr.errors import LoadError, SchemaError
from afr.store.skb import EdgeType, NodeType, SkbSchema

# Type names end up as values in SQL, never as identifiers, but we still keep them sane.
_TYPE_NAME = re.compile(r"^[^\x00-\x1f]{1,200}$")


def parse_skb_json(data: Any, source: str = "skb.json") -> SkbSchema:
    """Validate the ``skb.json`` document and build the schema (LoadError when broken)."""
    name, raw_nodes, raw_edges, candidates, directed = _top_level(data, source)
    node_types = _node_types(raw_nodes, candidates, source)
    edge_types = _edge_types(raw_edges, node_types, directed, source)
    return SkbSchema(
        name=name.strip(),
        description=str(data.get("description") or ""),
        directed=directed,
        node_types=node_types,
        edge_types=edge_types,
    )


def _top_level(data: Any, source: str
               ) -> tuple[str, dict[str, Any], dict[str, Any], list[str] | None, bool]:
    """The document's name, node types, edge types, candidate types (None: all) and
    whether its edges are directed, each checked."""
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
    return name, raw_nodes, raw_edges, candidates, directed


def _node_types(raw_nodes: dict[str, Any], candidates: list[str] | None,
                source: str) -> dict[str, NodeType]:
    """The node types; all are candidates unless ``candidates`` names some."""
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
    return node_types


def _edge_types(raw_edges: dict[str, Any], node_types: dict[str, NodeType], directed: bool,
                source: str) -> dict[str, EdgeType]:
    """The edge types, between known node types and with labels of their own
    (``directed``: the SKB's default, for the edge types that do not say)."""
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
        edge_directed = spec.get("directed", directed)
        if not isinstance(edge_directed, bool):
            raise LoadError(f"{source}: edge type {ename!r}: 'directed' must be true or false")
        edge_types[ename] = EdgeType(
            type=ename,
            label=str(spec.get("label") or ename),
            description=str(spec.get("description") or ""),
            source_type=src,
            target_type=dst,
            directed=edge_directed,
        )
    labels = [t.label for t in edge_types.values()]
    dup = sorted({x for x in labels if labels.count(x) > 1})
    if dup:
        raise LoadError(f"{source}: edge type labels must be unique; repeated: {dup[:5]}")
    return edge_types


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
