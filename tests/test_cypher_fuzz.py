"""Property tests for the parser: grammatical queries parse to exactly the graph they were
rendered from; mutated, random and huge inputs never raise and always give a valid query
graph. bench/fuzz_parser.py runs the same strategies for tens of thousands of cases."""

from __future__ import annotations

from cypher_strategies import (
    check,
    grammatical_queries,
    huge_inputs,
    mutated_queries,
    random_texts,
    shape,
)
from hypothesis import HealthCheck, given, settings

from afr.cypher import parse_cypher
from afr.cypher.model import QueryGraph

FAST = settings(deadline=None, suppress_health_check=[HealthCheck.too_slow,
                                                      HealthCheck.data_too_large])


@settings(FAST, max_examples=200)
@given(grammatical_queries())
def test_grammatical_query_round_trips(case: tuple[str, QueryGraph]) -> None:
    text, expected = case
    graph = parse_cypher(text)
    assert check(graph) == []
    assert graph.dropped == [], text
    assert shape(graph) == shape(expected), text


@settings(FAST, max_examples=150)
@given(mutated_queries())
def test_mutated_query_gives_valid_graph(text: str) -> None:
    assert check(parse_cypher(text)) == []


@settings(FAST, max_examples=150)
@given(random_texts)
def test_random_text_gives_valid_graph(text: str) -> None:
    assert check(parse_cypher(text)) == []


@settings(FAST, max_examples=4)
@given(huge_inputs(size=30_000))
def test_large_input_gives_valid_graph(text: str) -> None:
    # Small count and size here: linear time is measured by bench/fuzz_parser.py.
    assert check(parse_cypher(text)) == []


def test_validate_rejects_broken_graphs() -> None:
    from afr.cypher.model import Condition, Triplet

    g = QueryGraph(target="nobody")
    g.symbol("a").conditions += [Condition("x", "IN", ()), Condition("y", "CONTAINS", 3),
                                 Condition("z", "LIKE", "q"), Condition("w", "<", True),
                                 Condition("v", "=", float("inf")), Condition("u", "=", 2**70)]
    g.triplets.append(Triplet("a", "r", "ghost", True, 2, 1))
    problems = g.problems()
    for expected in ("target", "non-empty list", "needs a text value", "unknown operator",
                     "booleans", "not finite", "64-bit", "ghost", "hops"):
        assert any(expected in p for p in problems), (expected, problems)
    try:
        g.validate()
    except ValueError as exc:
        assert "invalid query graph" in str(exc)
    else:
        raise AssertionError("validate() accepted a broken graph")
