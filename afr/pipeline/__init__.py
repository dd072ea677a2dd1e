"""`afr ask`: a session dispatches each question to its method (``ask``), and one shared
finish runs step 8 and logs the run (``finish``, ``rerank``, ``runs``); ``result`` is what
comes back. Modules load on first use."""

from __future__ import annotations

from afr.lazy import lazy_exports

_EXPORTS = {
    "Pipeline": "afr.pipeline.ask",
    "ask": "afr.pipeline.ask",
    "open_session": "afr.pipeline.ask",
    "explain_cypher": "afr.pipeline.ask",
    "AskResult": "afr.pipeline.result",
    "assess": "afr.pipeline.confidence",
    "list_runs": "afr.pipeline.runs",
    "find_run": "afr.pipeline.runs",
    "run_details": "afr.pipeline.runs",
    "settings_differences": "afr.pipeline.runs",
    "prune_runs": "afr.pipeline.prune",
    "llm_calls": "afr.pipeline.cost",
    "rerank_calls": "afr.pipeline.cost",
    "describe_calls": "afr.pipeline.cost",
}

__getattr__ = lazy_exports("afr.pipeline", _EXPORTS)

__all__ = list(_EXPORTS)
