"""What a question's run produces: candidates, ranked answers, and the whole AskResult."""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any

from afr.cypher.fix import Fix
from afr.cypher.resolve import ResolvedQuery
from afr.ground.query import GroundingResult
from afr.pipeline.config import AskConfig
from afr.pipeline.symbols import SymbolCandidates

# Kinds of LLM failure, gravest first: refused access (401/403/404), unreachable, timed
# out (these three: the endpoint cannot be used at all), and any other failure.
LLM_FAILURES = ("access", "unreachable", "timeout", "error")


@dataclass
class Candidate:
    node_id: int
    source: str  # graph | vss | both
    level: int | None = None
    vss_score: float | None = None
    provenance: dict = field(default_factory=dict)


@dataclass
class RankedAnswer:
    rank: int
    node_id: int
    ext_id: str
    name: str | None
    type: str
    source: str
    level: int | None
    vss_score: float | None
    rerank_position: int | None
    provenance: dict = field(default_factory=dict)


@dataclass
class AskResult:
    run_id: str
    question: str
    mode: str  # llm | offline
    config: AskConfig
    status: str = "ok"  # ok | degraded
    # Why LLM steps fell back, the gravest kind when several did (LLM_FAILURES): None when
    # the LLM did every step it was given (or there is no LLM).
    llm_failure: str | None = None
    llm_error: str | None = None  # the message of that failure
    target_type: str | None = None
    cypher: str | None = None
    query_graph: dict = field(default_factory=dict)
    resolved: ResolvedQuery | None = None
    symbols: dict[str, SymbolCandidates] = field(default_factory=dict)
    grounding: GroundingResult | None = None
    answers: list[RankedAnswer] = field(default_factory=list)
    timings: dict[str, float] = field(default_factory=dict)
    warnings: list[str] = field(default_factory=list)
    llm_calls: int = 0
    llm_tokens: int = 0
    rerank_prompts: int = 0
    llm_new_calls: int = 0  # calls that reached the LLM (the rest came from the cache)
    llm_tokens_all: int = 0  # tokens of all calls, cached replies included: the method's cost
    fixes: list[Fix] = field(default_factory=list)  # deterministic fixes of the Cypher used
    repair: dict | None = None  # the repair round, when one ran (afr.pipeline.repair)
    outcome: str | None = None  # valid | fixed | repaired | unanswerable | failed
    link_confidence: float = 1.0  # how far the Cypher is trusted (offline guesses: less)
    sage: dict | None = None  # what SAGE's expansion did (methods sage, af+sage)
    # --method kar: linked entities, kept triples, expansions (afr.pipeline.kar.KarRun.trace)
    kar: dict | None = None
    # The strands behind the final list, for evaluation ablations (not logged, not in JSON):
    # all grounded answers by (level, similarity), the plain VSS list, the list before step 8.
    graph_ranked: list[Candidate] = field(default_factory=list, repr=False)
    vss_ranked: list[tuple[int, float]] = field(default_factory=list, repr=False)
    pre_rerank: list[Candidate] = field(default_factory=list, repr=False)
    lexical_ranked: list[tuple[int, float]] = field(default_factory=list, repr=False)

    def llm_failed(self, kind: str, message: str) -> None:
        """Record an LLM step that fell back; the gravest kind wins."""
        if self.llm_failure is None or LLM_FAILURES.index(kind) < \
                LLM_FAILURES.index(self.llm_failure):
            self.llm_failure, self.llm_error = kind, message

    def to_dict(self) -> dict[str, Any]:
        return {
            "run_id": self.run_id,
            "question": self.question,
            "mode": self.mode,
            "status": self.status,
            "llm_failure": self.llm_failure,
            "outcome": self.outcome,
            "target_type": self.target_type,
            "cypher": self.cypher,
            "query_graph": self.query_graph,
            "fixes": [asdict(f) for f in self.fixes],
            "repair": self.repair,
            "dropped": self.resolved.dropped if self.resolved else [],
            "notes": self.resolved.notes if self.resolved else [],
            "symbols": {
                var: {"search": s.search, "candidates": s.ids[:10], "exact": s.exact,
                      "allowed": None if s.allowed is None else len(s.allowed),
                      "notes": s.notes}
                for var, s in self.symbols.items()
            },
            "grounding": None if self.grounding is None else {
                "answers": len(self.grounding.answers),
                "final_level": self.grounding.final_level,
                "sql": self.grounding.sql,
            },
            "answers": [a.__dict__ for a in self.answers],
            **({"sage": self.sage} if self.sage is not None else {}),
            "timings": self.timings,
            "warnings": self.warnings,
            "llm_calls": self.llm_calls,
            "llm_tokens": self.llm_tokens,
            **({"kar": self.kar} if self.kar is not None else {}),
        }
