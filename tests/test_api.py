"""The Python API: load, embed, ask — the same job as the CLI, typed results."""

from __future__ import annotations

from pathlib import Path

from settings_util import settings_of
from skbutil import toy_skb

import afr


def test_python_api_end_to_end(tmp_path: Path) -> None:
    store = afr.open_store(tmp_path / "api.duckdb")
    afr.load_skb_dir(store, toy_skb(tmp_path / "skb"), progress=False)
    afr.embed_store(store, afr.make_embedder("hash"), progress=False)
    result = afr.ask(store, "Which paper by Thomas Kipf is about graph learning?",
                     settings_of(llm__offline=True))
    assert isinstance(result, afr.AskResult) and result.mode == "offline"
    assert result.answers[0].ext_id == "p3"
    assert "Thomas Kipf" in (result.cypher or "")
    graph = afr.parse_cypher(result.cypher or "")
    assert graph.target == "y"
