"""Every knob of `afr ask`, with the defaults that reproduce the paper (docs/method.md)."""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any, Literal, get_args

from afr.cypher.resolve import Mode

Reranker = Literal["pairwise", "listwise", "pointwise", "none"]
RERANKERS: tuple[str, ...] = get_args(Reranker)  # step 8's methods; "none" skips it
# paper: steps 6–7 as published; hybrid: fused ranking (afr.pipeline.hybrid_ranking)
Ranking = Literal["paper", "hybrid"]
RANKINGS: tuple[str, ...] = get_args(Ranking)
# af: the Autofocus-Retriever; vss / bm25 / hybrid: plain retrieval over the target type;
# kar: Knowledge-Aware Retrieval, query expansion from KG neighbourhoods (afr.pipeline.kar)
# sage: hybrid seeds widened by the similarity graph; af+sage: AF's steps 1–7 as the seeds
Method = Literal["af", "vss", "bm25", "hybrid", "kar", "sage", "af+sage"]
METHODS: tuple[str, ...] = get_args(Method)


@dataclass
class AskConfig:
    k: int = 20  # answers handed to the reranker
    l_max: int = 100  # candidates per constant
    alpha: float = 2 / 3  # share of the k answers taken from the graph strand
    mode: Mode = "strict"  # strict: filter symbols by predicted node type
    use_edge_types: bool = True  # False: any relation satisfies a triplet
    reranker: Reranker = "pairwise"
    rerank_concurrency: int = 8
    rerank_with_relations: bool = True  # node descriptions carry doc_rel relations
    ranking: Ranking = "hybrid"  # steps 6–7: the hybrid extension, or "paper" as published
    method: Method = "af"
    exact_names_first: bool = True  # exact name/alias matches lead a constant's candidates
    exact_search: bool = False  # vector search never uses an approximate (HNSW) index
    offline: bool | None = None  # None: offline exactly when no LLM is configured
    use_cache: bool = True  # read the llm_calls cache
    log: bool = True  # write runs / run_symbols / run_answers
    fix: bool = True  # deterministic Cypher fixes before resolving (afr.cypher.fix)
    # One LLM repair round. None: on when an LLM is configured, for the Cypher it wrote
    # (not for a given one: replayed or hand-written); True: also for a given one.
    repair: bool | None = None
    # "Vector search is weak": the best plain-search score of the target type is below
    # this (cosine similarity of the question to the documents with relations). With no
    # grounded answer as well, the run's outcome is "unanswerable" (docs/method.md).
    weak_vss: float = 0.2
    # Explicit overrides only (flags, API callers); empty / None = unset. The Pipeline
    # fills in the environment, the settings file and the defaults (afr.settings).
    llm: dict[str, Any] = field(default_factory=dict)  # LLMConfig fields
    step_models: dict[str, str] = field(default_factory=dict)  # step name → model
    step_effort: dict[str, str] = field(default_factory=dict)  # step name → effort
    prompts_dir: str | None = None  # a folder with the user's own prompt templates

    @property
    def graph_quota(self) -> int:
        return round(self.alpha * self.k)

    def to_dict(self) -> dict[str, Any]:
        data = asdict(self)
        data["llm"] = {k: v for k, v in self.llm.items() if "key" not in k.lower()}
        return data
