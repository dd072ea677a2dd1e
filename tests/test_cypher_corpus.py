"""The parser against a hand-written corpus of realistic LLM replies (tests/data)."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest

from afr.cypher import parse_cypher
from afr.cypher.model import QueryGraph


def _load_cases() -> list[dict]:
    path = Path(__file__).parent / "data" / "cypher_corpus.py"
    spec = importlib.util.spec_from_file_location("cypher_corpus", path)
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.CASES


CASES = _load_cases()


def _shape(graph: QueryGraph) -> dict:
    return {
        "target": graph.target,
        "symbols": {v: (s.label, [(c.attribute, c.op, c.value) for c in s.conditions])
                    for v, s in graph.symbols.items()},
        # alternative types as written: "a|b"
        "triplets": [(t.head, "|".join(t.edges) or None, t.tail, t.directed, t.min_hops,
                      t.max_hops) for t in graph.triplets],
    }


def test_corpus_is_big_and_unique() -> None:
    ids = [c["id"] for c in CASES]
    assert len(ids) >= 60 and len(set(ids)) == len(ids)
    for prefix in ("prime-", "mag-", "amazon-", "demo-"):
        assert sum(i.startswith(prefix) for i in ids) >= 10, prefix


@pytest.mark.parametrize("case", CASES, ids=[c["id"] for c in CASES])
def test_corpus_case(case: dict) -> None:
    graph = parse_cypher(case["text"])
    assert graph.problems() == []
    expected = {k: case[k] for k in ("target", "symbols", "triplets")}
    assert _shape(graph) == expected
    reasons = [d.reason for d in graph.dropped]
    assert len(reasons) == len(case["dropped"]), reasons
    for reason, wanted in zip(reasons, case["dropped"], strict=True):
        assert wanted in reason, reasons
    for d in graph.dropped:
        assert "internal error" not in d.reason and "\x00" not in d.text
