"""afr: the Autofocus-Retriever over semi-structured knowledge bases, in SQL.

    import afr
    store = afr.open_store("afr.duckdb")          # or "postgresql://…"
    afr.load_skb_dir(store, "my-skb")
    afr.embed_store(store, afr.make_embedder("hash"))
    result = afr.ask(store, "Which …?")            # AskResult: answers, cypher, timings …
"""

from __future__ import annotations

from typing import Any

__version__ = "0.1.0"

_EXPORTS = {
    "open_store": "afr.store",
    "load_skb_dir": "afr.load",
    "embed_store": "afr.vectors",
    "make_embedder": "afr.embed",
    "ask": "afr.pipeline.ask",
    "Pipeline": "afr.pipeline.ask",
    "AskResult": "afr.pipeline.ask",
    "AskConfig": "afr.pipeline.config",
    "parse_cypher": "afr.cypher",
    "ground": "afr.ground",
    "AfrError": "afr.errors",
}


def __getattr__(name: str) -> Any:
    # Lazy: `afr --help` should not pay for importing the whole pipeline.
    if name in _EXPORTS:
        import importlib

        return getattr(importlib.import_module(_EXPORTS[name]), name)
    raise AttributeError(f"module 'afr' has no attribute {name!r}")


__all__ = ["__version__", *_EXPORTS]
