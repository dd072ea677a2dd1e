"""What a store holds, as one dictionary (``afr info``): the SKB, counts per node and edge
type, embeddings, runs and cached LLM calls."""

from __future__ import annotations

from typing import Any

from afr.store.base import Store


def describe_store(store: Store) -> dict[str, Any]:
    """The store's location and schema version; with an SKB loaded also its name,
    description, direction, candidate types, totals (nodes, edges, runs, llm_calls) and
    per-type lists ``node_types``, ``edge_types`` and ``embeddings``. ``skb`` is None
    when no SKB is loaded."""
    summary: dict[str, Any] = {"store": store.location, "schema_version": store.schema_version()}
    if summary["schema_version"] == 0 or not store.skb_name():
        summary["skb"] = None
        return summary
    schema = store.skb_schema()
    nodes, edges, runs, llm_calls = store.run("meta/summary.sql")[0][:4]
    summary.update({
        "skb": schema.name,
        "description": schema.description,
        "directed": schema.directed,
        "candidate_types": schema.candidate_types,
        "nodes": nodes, "edges": edges, "runs": runs, "llm_calls": llm_calls,
        "node_types": [
            {"type": r[0], "label": r[1], "count": r[2], "candidate": bool(r[3])}
            for r in store.run("meta/node_type_counts.sql")
        ],
        "edge_types": [
            {"type": r[0], "label": r[1], "source": r[2], "target": r[3], "count": r[4]}
            for r in store.run("meta/edge_type_counts.sql")
        ],
        "embeddings": [
            {"variant": r[0], "model": r[1], "dim": r[2], "nodes": r[3]}
            for r in store.run("meta/embeddings.sql")
        ],
        "server_memory": _server_memory(store),
        "loaded_at": store.meta_fact("skb_loaded_at"),
        "source": store.meta_fact("skb_source"),
    })
    return summary


def _server_memory(store: Store) -> dict[str, int] | None:
    memory = store.server_memory()
    if memory is None:
        return None
    return {"shared_buffers": memory[0], "vector_indexes": memory[1]}


def size_text(n: int) -> str:
    """Bytes for people: 128 MB, 1.1 GB."""
    if n >= 1000 << 20:  # "1.0 GB", not "1016 MB"
        return f"{n / (1 << 30):.1f} GB"
    return f"{n / (1 << 20):.0f} MB"
