"""The run log of a KAR ask: ``run_kar_entities``, ``run_kar_triples`` and
``run_kar_expansions`` (schema/008_kar.sql), written inside ``write_run``'s transaction."""

from __future__ import annotations

from typing import Any

from afr.store.base import Store


def write_kar(store: Store, run_id: str, trace: dict[str, Any]) -> None:
    """Rows of one KAR run (``KarRun.trace``)."""
    entities = trace.get("entities", [])
    if entities:
        store.run("kar/insert_entities.sql", {
            "run_id": run_id,
            "entities": [e["entity"] for e in entities],
            "sources": [e["source"] for e in entities],
            "texts": [e["text"] for e in entities],
            "types": [e["node_type"] for e in entities],
            "node_ids": [e["node_id"] for e in entities],
            "scores": [e["score"] for e in entities],
        })
    triples = trace.get("triples", [])
    if triples:
        params = {"entities": "entity", "ranks": "rank", "heads": "head", "r1s": "r1",
                  "forward1s": "forward1", "mids": "mid", "r2s": "r2",
                  "forward2s": "forward2", "tails": "tail", "hops": "hop",
                  "scores": "score", "rendered": "rendered"}
        store.run("kar/insert_triples.sql", {
            "run_id": run_id, **{p: [t[c] for t in triples] for p, c in params.items()}})
    expansions = trace.get("expansions", [])
    if expansions:
        store.run("kar/insert_expansions.sql", {
            "run_id": run_id,
            "samples": list(range(1, len(expansions) + 1)),
            "sources": [trace.get("expansion_source", "llm")] * len(expansions),
            "texts": expansions,
        })
