"""Settings stored by afr before the settings tree (0.1.0 up to 8d6a974): one flat
``AskConfig`` dict per run. Read back as tree paths, so an old evaluation resumes with the
settings it stored; what it did not store (the [ranking], [bm25], [sage] and [kar]
tables) takes today's values, and ``missing`` says which sections those are."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

_FLAT = {
    "k": "ask.k", "method": "ask.method", "log": "ask.log", "l_max": "af.l_max",
    "alpha": "af.alpha", "mode": "af.mode", "use_edge_types": "af.use_edge_types",
    "ranking": "af.ranking", "exact_names_first": "af.exact_names_first", "fix": "af.fix",
    "repair": "af.repair", "weak_vss": "af.weak_vss", "reranker": "rerank.method",
    "rerank_concurrency": "rerank.concurrency",
    "rerank_with_relations": "rerank.with_relations", "offline": "llm.offline",
    "use_cache": "llm.use_cache", "exact_search": "vectors.exact_search",
    "prompts_dir": "prompts.dir",
}
UNSTORED_SECTIONS = ("ranking", "bm25", "sage", "kar")


def is_legacy(stored: Mapping[str, Any]) -> bool:
    """A flat AskConfig dict rather than a nested settings tree."""
    return "ask" not in stored and ("k" in stored or "l_max" in stored)


def from_legacy(stored: Mapping[str, Any]) -> dict[str, Any]:
    """A legacy dict as dotted tree paths."""
    out = {path: stored[key] for key, path in _FLAT.items() if key in stored}
    for key, value in (stored.get("llm") or {}).items():
        if key in ("base_url", "model", "timeout_s", "max_retries", "temperature",
                   "max_tokens", "reasoning_effort"):
            out[f"llm.{key}"] = value
    for step, model in (stored.get("step_models") or {}).items():
        out[f"llm.steps.{step}.model"] = model
    for step, effort in (stored.get("step_effort") or {}).items():
        out[f"llm.steps.{step}.effort"] = effort
    return out
