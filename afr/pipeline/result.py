"""What one ask produces: the ranked answers and the typed record of every step.

``AskResult`` is built once, from the method's ``Retrieved`` and step 8's outcome
(``afr.pipeline.finish``), and never changed afterwards.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import asdict, dataclass, field
from typing import TYPE_CHECKING, Any

from afr.llm.fallback import Fallback, gravest
from afr.methods.base import Retrieved
from afr.retrieval.candidate import Candidate, Strands
from afr.settings import Settings

if TYPE_CHECKING:
    from afr.cypher.fix import Fix
    from afr.cypher.resolve import ResolvedQuery
    from afr.ground.query import GroundingResult
    from afr.methods.af.repair import RepairRound
    from afr.methods.af.symbols import SymbolCandidates
    from afr.methods.af.trace import AfTrace
    from afr.methods.kar.run import KarTrace
    from afr.methods.sage.expand import SageTrace

__all__ = ["AskResult", "Candidate", "RankedAnswer"]


@dataclass(frozen=True)
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
    provenance: Mapping[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class AskResult:
    run_id: str
    question: str
    mode: str  # llm | offline
    settings: Settings
    retrieved: Retrieved  # what the method found (the list before step 8, its traces)
    answers: tuple[RankedAnswer, ...] = ()
    timings: Mapping[str, float] = field(default_factory=dict)
    warnings: tuple[str, ...] = ()
    fallbacks: tuple[Fallback, ...] = ()  # LLM steps that fell back, in step order
    llm_calls: int = 0
    llm_new_calls: int = 0  # calls that reached the LLM (the rest came from the cache)
    llm_tokens: int = 0  # tokens of the calls that reached the LLM
    llm_tokens_all: int = 0  # tokens of all calls, cached replies included: the method's cost
    rerank_prompts: int = 0
    rerank_unusable: int = 0  # rerank replies that could not be read
    rerank_replies: int = 0  # rerank replies received
    reranked: bool = False  # step 8 gave the order: a reply named a candidate (or k = 1)
    dense_from: str = ""  # where the fusion's dense weight (settings.ranking.dense) came from
    hybrid_dense_from: str = ""  # and the hybrid list's (settings.ranking.hybrid_dense)
    logged: bool = False  # its rows are in the run log
    llm_input_tokens: int = 0  # of all calls (cached included): sent …
    llm_output_tokens: int = 0  # … and received
    rerank_overflows: tuple[str, ...] = ()  # step 8 prompts that did not fit: full, related

    # -- what every method has --------------------------------------------------------

    @property
    def method(self) -> str:
        return self.settings.ask.method

    @property
    def target_type(self) -> str | None:
        return self.retrieved.target_type

    @property
    def strands(self) -> Strands:
        return self.retrieved.strands

    @property
    def status(self) -> str:
        """ok, or degraded when an LLM step fell back (its call failed, or its reply could
        not be used)."""
        return "degraded" if self.fallbacks else "ok"

    @property
    def llm_failure(self) -> str | None:
        """The gravest kind of LLM failure (``afr.llm.fallback.KINDS``), None when the LLM
        did every step it was given (or there is no LLM)."""
        worst = gravest(self.fallbacks)
        return worst.kind if worst else None

    @property
    def llm_error(self) -> str | None:
        worst = gravest(self.fallbacks)
        return worst.error if worst else None

    # -- AF's steps (None or empty for the other methods) -------------------------------

    @property
    def af(self) -> AfTrace | None:
        return self.retrieved.af

    @property
    def cypher(self) -> str | None:
        return self.af.cypher if self.af else None

    @property
    def resolved(self) -> ResolvedQuery | None:
        return self.af.grounded.resolved if self.af else None

    @property
    def query_graph(self) -> dict[str, Any]:
        return self.af.grounded.graph.to_dict() if self.af else {}

    @property
    def fixes(self) -> list[Fix]:
        return self.af.grounded.fixes if self.af else []

    @property
    def symbols(self) -> dict[str, SymbolCandidates]:
        return self.af.grounded.symbols if self.af else {}

    @property
    def grounding(self) -> GroundingResult | None:
        return self.af.grounded.result if self.af else None

    @property
    def repair(self) -> RepairRound | None:
        return self.af.repair if self.af else None

    @property
    def outcome(self) -> str | None:
        return self.af.outcome if self.af else None

    @property
    def link_confidence(self) -> float:
        return self.af.formalized.link_confidence if self.af else 1.0

    @property
    def sage(self) -> SageTrace | None:
        return self.retrieved.sage

    @property
    def kar(self) -> KarTrace | None:
        return self.retrieved.kar

    def to_dict(self) -> dict[str, Any]:
        repair = self.repair
        return {
            "run_id": self.run_id,
            "question": self.question,
            "mode": self.mode,
            "method": self.method,
            "status": self.status,
            "llm_failure": self.llm_failure,
            "outcome": self.outcome,
            "target_type": self.target_type,
            "cypher": self.cypher,
            "query_graph": self.query_graph,
            "fixes": [asdict(f) for f in self.fixes],
            "repair": repair.to_dict() if repair is not None else None,
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
            "answers": [{**asdict(a), "provenance": dict(a.provenance)} for a in self.answers],
            **({"sage": self.sage.to_dict()} if self.sage is not None else {}),
            "fusion": {"dense": self.settings.ranking.dense, "dense_from": self.dense_from,
                       "hybrid_dense": self.settings.ranking.hybrid_dense,
                       "hybrid_dense_from": self.hybrid_dense_from,
                       "lexical": self.settings.ranking.lexical,
                       "graph": self.settings.ranking.graph},
            "timings": dict(self.timings),
            "warnings": list(self.warnings),
            "fallbacks": [asdict(f) for f in self.fallbacks],
            "llm_calls": self.llm_calls,
            "llm_tokens": self.llm_tokens,
            "rerank_prompts": self.rerank_prompts,
            "rerank_unusable": self.rerank_unusable,
            "rerank_replies": self.rerank_replies,
            "reranked": self.reranked,
            **({"kar": self.kar.to_dict()} if self.kar is not None else {}),
        }
