"""What retrieval hands on: candidates, and the ranked lists behind a final list."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any


@dataclass(frozen=True)
class Candidate:
    """One node of a list before step 8."""

    node_id: int
    source: str  # graph | vss | both | bm25 | hybrid | kar | sage_seed | …
    level: int | None = None  # the scope level of a grounded answer
    vss_score: float | None = None  # the question's cosine similarity to it
    # why it is there: the named entities linking a grounded answer, fused scores, SAGE's
    # seed (JSON-able; the run log keeps it)
    provenance: Mapping[str, Any] = field(default_factory=dict)


Ranked = list[tuple[int, float]]  # (node id, score), best first


@dataclass(frozen=True)
class Strands:
    """The lists a method's final list was made from: the evaluation's ablation variants
    are read off them (``afr.evaluate.variants``) without asking again."""

    graph: tuple[Candidate, ...] = ()  # grounded answers in ranking order (AF)
    vss: tuple[tuple[int, float], ...] = ()  # plain vector search over the answer types
    lexical: tuple[tuple[int, float], ...] = ()  # BM25 of the question over them
    final: tuple[Candidate, ...] = ()  # the list before step 8
    notes: tuple[str, ...] = ()
