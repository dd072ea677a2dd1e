"""afr: the Autofocus-Retriever over semi-structured knowledge bases, in SQL.

    import afr
    store = afr.open_store("afr.duckdb")          # or "postgresql://…"
    afr.load_skb_dir(store, "my-skb")
    afr.embed_store(store, afr.make_embedder("hash"))
    result = afr.ask(store, "Which …?")            # AskResult: answers, cypher, timings …

    # settings: flags > environment > settings file > defaults, resolved once
    settings = afr.resolve_settings({"af.l_max": 30}).settings
    result = afr.ask(store, "Which …?", settings)
"""

from __future__ import annotations

from pathlib import Path

from afr.lazy import lazy_exports

__version__ = "0.1.0"

# An installed afr carries cli/, sql/ and schema/ inside the package (pyproject's
# package-dir). A source checkout on sys.path (``python -m afr`` in the repository) has them
# beside afr/: let ``afr.cli`` and friends be found there too.
_SOURCE_ROOT = Path(__file__).resolve().parent.parent
if not (Path(__file__).resolve().parent / "cli").is_dir() \
        and (_SOURCE_ROOT / "cli" / "main.py").is_file():
    __path__.append(str(_SOURCE_ROOT))  # noqa: F821 - a package's own search path

_EXPORTS = {
    "open_store": "afr.store",
    "load_skb_dir": "afr.load",
    "embed_store": "afr.vectors",
    "make_embedder": "afr.embed",
    "ask": "afr.pipeline.ask",
    "Pipeline": "afr.pipeline.ask",
    "AskResult": "afr.pipeline.ask",
    "Settings": "afr.settings",
    "resolve_settings": "afr.settings",
    "parse_cypher": "afr.cypher",
    "ground": "afr.ground",
    "AfrError": "afr.errors",
}

# Lazy: `afr --help` should not pay for importing the whole pipeline.
__getattr__ = lazy_exports("afr", _EXPORTS)


__all__ = ["__version__", *_EXPORTS]
