"""The Cypher parser on the constructs LLMs actually write."""

from __future__ import annotations

import datetime as dt

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from afr.cypher import parse_cypher
from afr.querygraph import OPERATORS, Condition


def triplets(text: str) -> list[tuple]:
    g = parse_cypher(text)
    return [(t.head, t.edge, t.tail, t.directed, t.min_hops, t.max_hops) for t in g.triplets]


def test_arrow_directions_and_undirected() -> None:
    assert triplets("MATCH (a)-[:r]->(b) RETURN b") == [("a", "r", "b", True, 1, 1)]
    assert triplets("MATCH (a)<-[:r]-(b) RETURN b") == [("b", "r", "a", True, 1, 1)]
    assert triplets("MATCH (a)-[:r]-(b) RETURN b") == [("a", "r", "b", False, 1, 1)]
    assert triplets("MATCH (a)-->(b)<--(c) RETURN b") == [("a", None, "b", True, 1, 1),
                                                         ("c", None, "b", True, 1, 1)]


def test_chain_and_several_matches() -> None:
    g = parse_cypher("MATCH (a:A)<-[:r]-(b:B)-[:s]->(c:C)\nMATCH (c)-[:t]-(d), (a)-[:u]-(d)\n"
                     "RETURN d")
    assert [(t.head, t.edge, t.tail) for t in g.triplets] == [
        ("b", "r", "a"), ("b", "s", "c"), ("c", "t", "d"), ("a", "u", "d")]
    assert g.target == "d" and g.symbols["c"].label == "C"


def test_names_with_quotes_and_parentheses() -> None:
    g = parse_cypher("""MATCH (d:disease {name: "Alzheimer's disease"})-[:x]-(g:gene """
                     """{name: 'IL-6 (interleukin)'}), (p {name: 'O\\'Brien'}) RETURN g""")
    assert g.symbols["d"].conditions == [Condition("name", "=", "Alzheimer's disease")]
    assert g.symbols["g"].conditions == [Condition("name", "=", "IL-6 (interleukin)")]
    assert g.symbols["p"].conditions == [Condition("name", "=", "O'Brien")]
    assert g.symbols["d"].is_constant and g.target == "g"


def test_map_with_several_properties_and_types() -> None:
    g = parse_cypher("MATCH (p:Paper {title: 'Deep nets', year: 2015, score: -1.5, "
                     "open: true}) RETURN p")
    assert g.symbols["p"].conditions == [
        Condition("title", "=", "Deep nets"), Condition("year", "=", 2015),
        Condition("score", "=", -1.5), Condition("open", "=", True)]


def test_backticked_labels() -> None:
    g = parse_cypher("MATCH (g:`gene/protein`)-[:`expression present`]-(a:`anatomy part`) "
                     "RETURN g")
    assert g.symbols["g"].label == "gene/protein" and g.symbols["a"].label == "anatomy part"
    assert g.triplets[0].edge == "expression present"


def test_where_operators() -> None:
    g = parse_cypher("""MATCH (p:Paper) WHERE p.year >= 2015 AND p.year < 2020.5
        AND p.title CONTAINS 'graph' AND p.venue STARTS WITH "Neur" AND p.x ENDS WITH 's'
        AND p.code =~ 'A.*' AND p.lang IN ['en', 'de'] AND 3 < p.n
        AND p.published > date('2015-01-01') AND p.d <= '2020-12-31' RETURN p""")
    conds = g.symbols["p"].conditions
    assert conds == [
        Condition("year", ">=", 2015), Condition("year", "<", 2020.5),
        Condition("title", "CONTAINS", "graph"), Condition("venue", "STARTS WITH", "Neur"),
        Condition("x", "ENDS WITH", "s"), Condition("code", "=~", "A.*"),
        Condition("lang", "IN", ("en", "de")), Condition("n", ">", 3),
        Condition("published", ">", dt.date(2015, 1, 1)),
        Condition("d", "<=", dt.date(2020, 12, 31)),
    ]


def test_nested_attribute_and_tolower() -> None:
    g = parse_cypher("MATCH (d:drug) WHERE d.details.indication CONTAINS 'pain' AND "
                     "toLower(d.name) CONTAINS 'aspirin' RETURN d")
    assert g.symbols["d"].conditions == [Condition("details.indication", "CONTAINS", "pain"),
                                         Condition("name", "CONTAINS", "aspirin")]
    assert g.symbols["d"].is_constant


def test_or_becomes_in_other_or_and_not_dropped() -> None:
    g = parse_cypher("MATCH (p:P) WHERE (p.y = 2019 OR p.y = 2020) AND p.z = 1 OR p.w = 2 "
                     "RETURN p")
    # AND binds tighter: "(…) AND p.z = 1" OR "p.w = 2" is not an IN list → dropped
    assert any("OR" in d.reason for d in g.dropped)
    g2 = parse_cypher("MATCH (p:P) WHERE p.y = 2019 OR p.y = 2020 RETURN p")
    assert g2.symbols["p"].conditions == [Condition("y", "IN", (2019, 2020))]
    g3 = parse_cypher("MATCH (p:P) WHERE NOT p.y = 1 AND p.z <> 2 AND p.k = 3 RETURN p")
    assert g3.symbols["p"].conditions == [Condition("k", "=", 3)]
    assert len(g3.dropped) == 2


def test_return_forms() -> None:
    base = "MATCH (a:A {name: 'x'})-[:r]-(b:B) "
    assert parse_cypher(base + "RETURN DISTINCT b.name AS answer").target == "b"
    assert parse_cypher(base + "RETURN count(b)").target == "b"
    assert parse_cypher(base + "RETURN b ORDER BY b.name LIMIT 10").target == "b"
    assert parse_cypher(base + "return b").target == "b"
    missing = parse_cypher(base)
    assert missing.target == "b" and missing.dropped


def test_anonymous_nodes_and_relationship_variables() -> None:
    g = parse_cypher("MATCH (:Author {name: 'Ada'})-[w:writes]->(p)<-[:cites]-() RETURN p")
    assert [(t.head, t.edge, t.tail) for t in g.triplets] == [
        ("_anon1", "writes", "p"), ("_anon2", "cites", "p")]
    assert g.symbols["_anon1"].label == "Author"


def test_variable_length() -> None:
    assert triplets("MATCH (a)-[:r*1..2]->(b) RETURN b")[0][4:] == (1, 2)
    assert triplets("MATCH (a)-[:r*2]->(b) RETURN b")[0][4:] == (2, 2)
    assert triplets("MATCH (a)-[:r*]->(b) RETURN b")[0][4:] == (1, 3)
    assert triplets("MATCH (a)-[:r*..2]->(b) RETURN b")[0][4:] == (1, 2)
    g = parse_cypher("MATCH (a)-[:r*1..9]->(b) RETURN b")
    assert g.triplets[0].max_hops == 3 and g.dropped


def test_fences_prose_and_reasoning() -> None:
    reply = """<think>The user wants drugs. MATCH (x) is not it.</think>
Sure! Here is the query:

```cypher
MATCH (d:drug)-[:indication]->(c:disease {name: "asthma"})
RETURN d
```

This returns every drug indicated for asthma."""
    g = parse_cypher(reply)
    assert g.target == "d" and g.triplets[0].edge == "indication" and not g.dropped


def test_lowercase_keywords_and_trailing_prose() -> None:
    g = parse_cypher("match (a:A)-[:r]->(b:B) where b.n > 2 return b\n\nThat's it.")
    assert g.target == "b" and g.symbols["b"].conditions == [Condition("n", ">", 2)]


def test_alternative_types_keep_first() -> None:
    g = parse_cypher("MATCH (a)-[:r|s]->(b) RETURN b")
    assert g.triplets[0].edge == "r" and g.dropped


@pytest.mark.parametrize("text", ["", "hello", "MATCH", "MATCH (", "RETURN x", "((((",
                                  "MATCH (a)-[", "MATCH (a {name: 'x})", "MATCH (a)-[:r]->"])
def test_garbage_never_raises(text: str) -> None:
    g = parse_cypher(text)
    for t in g.triplets:
        assert t.head in g.symbols and t.tail in g.symbols
    assert g.target is None or g.target in g.symbols


@settings(max_examples=300, deadline=None)
@given(st.text(alphabet=st.sampled_from(list("()[]{}-<>:'\"`,.*= abcxyMATCHRETURNWHERE0129")),
               max_size=80))
def test_fuzz_valid_query_graph(text: str) -> None:
    g = parse_cypher(text)
    for t in g.triplets:
        assert t.head in g.symbols and t.tail in g.symbols
        assert 1 <= t.min_hops <= t.max_hops <= 3
    for s in g.symbols.values():
        assert all(c.op in OPERATORS for c in s.conditions)
    assert g.target is None or g.target in g.symbols
