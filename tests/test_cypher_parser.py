"""The Cypher parser on the constructs LLMs actually write."""

from __future__ import annotations

import datetime as dt

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from afr.cypher import parse_cypher, render_cypher
from afr.cypher.model import OPERATORS, Condition


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


def test_alternative_types_are_all_kept() -> None:
    g = parse_cypher("MATCH (a)-[:r|s|:t|r*1..2]->(b) RETURN b")
    t = g.triplets[0]
    assert (t.edge, t.alternatives, t.edges) == ("r", ("s", "t"), ("r", "s", "t"))
    assert (t.min_hops, t.max_hops) == (1, 2) and not g.dropped
    assert "[:r|s|t*1..2]" in render_cypher(g)
    assert parse_cypher(render_cypher(g)).triplets == g.triplets


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
    assert g.problems() == []


# -- bugs found by fuzzing and by the corpus, one test each ----------------------------


def test_nul_in_input_cannot_forge_a_masked_literal() -> None:
    g = parse_cypher("MATCH (a)-[:r]->(b {name: \x00S7\x00}) WHERE b.x = '\x00S0\x00' RETURN b")
    assert g.problems() == [] and g.target == "b"
    assert g.symbols["b"].conditions == [Condition("x", "=", " S0 ")]
    assert all("\x00" not in d.text for d in g.dropped)


def test_numbers_out_of_range_are_dropped_not_crashing() -> None:
    g = parse_cypher(f"MATCH (b) WHERE b.x = 1e999 AND b.y = {'9' * 5000} AND b.z = 7 "
                     f"RETURN b")
    assert g.symbols["b"].conditions == [Condition("z", "=", 7)]
    assert [d.reason.startswith("value not understood") for d in g.dropped] == [True, True]
    g = parse_cypher(f"MATCH (a)-[:r*{'9' * 5000}]->(b) RETURN b")
    assert (g.triplets[0].min_hops, g.triplets[0].max_hops) == (3, 3) and g.dropped


def test_values_typed_for_their_operator() -> None:
    g = parse_cypher("MATCH (b) WHERE b.title CONTAINS 2019 AND b.d STARTS WITH '2020-01-01' "
                     "AND b.flag > true AND b.x IN [] AND b.y = [1, 2] RETURN b")
    assert g.symbols["b"].conditions == [Condition("title", "CONTAINS", "2019"),
                                         Condition("d", "STARTS WITH", "2020-01-01")]
    assert len(g.dropped) == 3 and g.problems() == []


def test_control_characters_in_names_are_refused() -> None:
    g = parse_cypher("MATCH (x)-[r:\x1bindication]-(y:`a\x07b`) RETURN y")
    assert g.triplets[0].edge is None and g.symbols["y"].label is None
    assert g.problems() == [] and len(g.dropped) == 2


def test_comment_with_apostrophe_does_not_open_a_string() -> None:
    g = parse_cypher("// the drug's targets\nMATCH (d:drug {name: 'x'})-[:t]->(y) RETURN y")
    assert g.symbols["d"].conditions == [Condition("name", "=", "x")] and not g.dropped


def test_keywords_inside_names_and_brackets_are_not_clauses() -> None:
    g = parse_cypher("MATCH (a:gene/protein)-[:associated with]-(b:`where set`) "
                     "WHERE a.name STARTS WITH 'with' RETURN b")
    assert g.triplets[0].edge == "associated with" and g.symbols["b"].label == "where set"
    assert g.symbols["a"].conditions == [Condition("name", "STARTS WITH", "with")]
    assert not g.dropped


# Inputs that are slow for backtracking regular expressions or quadratic scans. At 20 KB a
# quadratic parser needs seconds, an exponential one never ends; bench/fuzz_parser.py
# measures the times at 100 KB.
_N = 20_000
_TRAPS = {
    "spaces-in-node": "MATCH (" + " " * _N + "x",
    "spaces-after-node": "MATCH (a)" + " " * _N + "x",
    "long-number": "MATCH (a) WHERE a.x = " + "1" * _N + "x RETURN a",
    "nested-parens": "MATCH (a) WHERE " + "(" * (_N // 2) + "a.x = 1" + ")" * (_N // 2),
    "unclosed-quotes": "MATCH (a {name: " + "'" * _N,
    "many-with": "MATCH (a) " + "with " * (_N // 5),
    "many-think": "<think>" * (_N // 7),
    "many-fences": "```" * (_N // 3),
    "comment-openers": "MATCH (a) " + "/*" * (_N // 2),
    "line-comments": "MATCH (a) " + "//\n" * (_N // 3),
    "long-chain": "MATCH (a)" + "<-[:r*1..2]->(a)" * (_N // 16) + " RETURN a",
    "many-ands": "MATCH (a) WHERE " + "a.x = 1 AND " * (_N // 12) + "a.y = 2 RETURN a",
    "many-ors": "MATCH (a) WHERE " + "a.x = 1 OR " * (_N // 11) + "a.y = 2 RETURN a",
    "many-equals": "MATCH (a) WHERE " + "1 = " * (_N // 4) + "a.x",
    "long-dotted-attribute": "MATCH (a) WHERE a" + ".b" * (_N // 2) + " = 1 RETURN a",
    "nested-lists": "MATCH (a) WHERE a.x IN " + "[" * (_N // 2) + "]" * (_N // 2),
    "date-call-spaces": "MATCH (a) WHERE a.d = date(" + " " * _N + "'2020-01-01')",
    "label-predicates": "MATCH (a) WHERE a" + ":b" * (_N // 2),
    "return-commas": "MATCH (a) RETURN a,\n" * (_N // 20),
    "stars": "MATCH (a)-[" + "*" * _N + "]->(b)",
}


@pytest.mark.parametrize("name", list(_TRAPS))
def test_backtracking_traps_parse(name: str) -> None:
    g = parse_cypher(_TRAPS[name])
    assert g.problems() == []
    assert not any("internal error" in d.reason for d in g.dropped)


def test_backticked_attribute_with_an_empty_path_step_is_dropped_alone() -> None:
    """A dot inside backticks still separates nested path steps; an empty step (leading,
    trailing or double dot) drops that condition with a reason, not the whole query (found
    by the fuzz test)."""
    text = ("MATCH (y) WHERE 'a' = y.name AND 'a' = y.`.release year` AND 'a' > y.name "
            "RETURN y")
    graph = parse_cypher(text)
    assert graph.problems() == [] and graph.target == "y"
    assert [c.attribute for c in graph.symbols["y"].conditions] == ["name", "name"]
    assert any("release year" in d.text and "not understood" in d.reason
               for d in graph.dropped)
    for bad in ("`a..b`", "`b.`"):
        graph = parse_cypher(f"MATCH (y) WHERE y.{bad} = 1 RETURN y")
        assert graph.problems() == [] and not graph.symbols["y"].conditions
    nested = parse_cypher("MATCH (y) WHERE y.`meta.year` = 1 RETURN y")
    assert [c.attribute for c in nested.symbols["y"].conditions] == ["meta.year"]
