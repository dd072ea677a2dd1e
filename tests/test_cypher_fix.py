"""Deterministic query-graph fixes (afr.cypher.fix): a corpus of broken LLM Cypher
(tests/data/broken_cypher.py), one test per fix kind, purity, and property tests: fixing
any parsed graph gives a valid graph, and fixing twice is fixing once."""

from __future__ import annotations

import copy
import dataclasses
import importlib.util
import json
from collections import Counter
from pathlib import Path

import pytest
from cypher_strategies import grammatical_queries, mutated_queries, query_graphs
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from afr.cypher import parse_cypher
from afr.cypher.fix import FIX_KINDS, Fix, FixResult, fix_query_graph
from afr.cypher.model import (
    Condition,
    Dropped,
    QueryGraph,
    Symbol,
    Triplet,
    name_search_strings,
)
from afr.load.skb_json import read_skb_json
from afr.resources import demo_skb_dir
from afr.store.skb import EdgeType, NodeType, SkbSchema
from afr.synth.graph import SynthGraph
from afr.synth.schemas import SHAPES

FAST = settings(deadline=None, suppress_health_check=[HealthCheck.too_slow,
                                                      HealthCheck.data_too_large])


def _load_corpus():
    path = Path(__file__).parent / "data" / "broken_cypher.py"
    spec = importlib.util.spec_from_file_location("broken_cypher", path)
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


CORPUS = _load_corpus()
CASES: list[dict] = CORPUS.CASES


def _synth(like: str, directed: bool) -> tuple[SkbSchema, dict[str, tuple[str, ...]]]:
    """The schema ``afr synth`` writes to skb.json for a shape, and its attributes."""
    from afr.load.skb_json import parse_skb_json

    shape = SHAPES[like]
    data = SynthGraph(shape, 0, [], []).skb_json()
    data["directed"] = directed
    attributes = {n.type: tuple(a.name for a in n.attrs) for n in shape.nodes}
    return parse_skb_json(json.loads(json.dumps(data)), f"synth-{like}"), attributes


def _schemas() -> dict[str, tuple[SkbSchema, dict[str, tuple[str, ...]]]]:
    out = {}
    demo = read_skb_json(demo_skb_dir() / "skb.json")
    out["demo"] = (demo, CORPUS.DEMO_ATTRIBUTES)
    out["demo_directed"] = (dataclasses.replace(demo, directed=True), CORPUS.DEMO_ATTRIBUTES)
    for like in SHAPES:
        out[like] = _synth(like, False)
        out[f"{like}_directed"] = _synth(like, True)
    return out


SCHEMAS = _schemas()


def _compact(graph: QueryGraph) -> dict:
    return {
        "target": graph.target,
        "symbols": {v: (s.label, [(c.attribute, c.op, c.value) for c in s.conditions])
                    for v, s in graph.symbols.items()},
        "triplets": [(t.head, t.edge, t.tail, t.directed) for t in graph.triplets],
    }


def _fix(text: str, schema_key: str, target_type: str | None = None) -> FixResult:
    schema, attributes = SCHEMAS[schema_key]
    return fix_query_graph(parse_cypher(text), schema, attributes, target_type=target_type)


# -- the corpus ------------------------------------------------------------------------


def test_corpus_is_big_varied_and_unique() -> None:
    ids = [c["id"] for c in CASES]
    assert len(ids) >= 60 and len(set(ids)) == len(ids)
    categories = Counter(c["category"] for c in CASES)
    for category in ("case", "plural", "separator", "typo_label", "typo_relation",
                     "relation_words", "reversed", "property_mapped", "property_dropped",
                     "missing_return", "misspelled_name", "syntax", "valid", "mixed"):
        assert categories[category] >= 3, category
    for prefix in ("demo-", "prime-", "mag-", "amazon-"):
        assert sum(i.startswith(prefix) for i in ids) >= 10, prefix
    assert {c["schema"] for c in CASES} <= set(SCHEMAS)
    used = {k for c in CASES for k in c["fixes"]}
    assert used <= set(FIX_KINDS)
    assert used == set(FIX_KINDS), f"no corpus case for {set(FIX_KINDS) - used}"


@pytest.mark.parametrize("case", CASES, ids=[c["id"] for c in CASES])
def test_corpus_case(case: dict) -> None:
    schema, attributes = SCHEMAS[case["schema"]]
    graph = parse_cypher(case["cypher"])
    result = fix_query_graph(graph, schema, attributes, target_type=case["target_type"])
    assert result.graph.problems() == []
    assert _compact(result.graph) == case["expect"], result.fixes
    assert Counter(result.kinds) == Counter(case["fixes"]), result.fixes
    reasons = [d.reason for d in result.graph.dropped]
    for wanted in case["dropped"]:
        assert any(wanted in r for r in reasons), (wanted, reasons)
    # Fixed again: nothing left to fix, the same graph.
    again = fix_query_graph(result.graph, schema, attributes, target_type=case["target_type"])
    assert again.fixes == [] and again.graph.to_dict() == result.graph.to_dict()
    # Every label a fix wrote names the schema's own type.
    for fix in result.fixes:
        if fix.kind.startswith("node_label"):
            assert fix.after in schema.node_types
        elif fix.kind.startswith("edge_label"):
            assert fix.after in schema.edge_types


def test_corpus_fixes_never_touch_entity_names() -> None:
    """Name matching is step 4's job: every name condition survives exactly as written."""
    for case in CASES:
        schema, attributes = SCHEMAS[case["schema"]]
        graph = parse_cypher(case["cypher"])
        fixed = fix_query_graph(graph, schema, attributes, target_type=case["target_type"])
        for var, sym in graph.symbols.items():
            for cond in sym.conditions:
                if name_search_strings(cond):
                    assert cond in fixed.graph.symbols[var].conditions, case["id"]


# -- one test per fix kind -------------------------------------------------------------


def _toy(directed: bool = True) -> SkbSchema:
    return SkbSchema(
        name="toy", directed=directed,
        node_types={t: NodeType(t, t) for t in ("drug", "disease", "gene/protein")},
        edge_types={
            "indication": EdgeType("indication", "drug_indicated_for_disease",
                                   source_type="drug", target_type="disease"),
            "target": EdgeType("target", "drug_targets_gene_protein",
                               source_type="drug", target_type="gene/protein"),
            "ppi": EdgeType("ppi", "gene_protein_interacts_with_gene_protein",
                            source_type="gene/protein", target_type="gene/protein"),
            "related": EdgeType("related", "related"),  # no declared ends
        },
    )


TOY_ATTRIBUTES = {"drug": ["approval_date", "molecular_weight"], "disease": [],
                  "gene/protein": ["chromosome", "length_bp"]}


def _graph(*symbols: Symbol, triplets: list[Triplet] | None = None,
           target: str | None = None) -> QueryGraph:
    g = QueryGraph({s.var: s for s in symbols}, triplets or [], target)
    return g.validate()


def test_node_label_normalised() -> None:
    for written in ("Drugs", "DRUG", "drugs", "Gene_Protein", "GeneProteins", "gene protein",
                    "Gene/Protein", "`gene-protein`"):
        res = fix_query_graph(_graph(Symbol("x", written), target="x"), _toy())
        assert res.graph.symbols["x"].label in ("drug", "gene/protein"), written
        assert res.kinds == ["node_label"], written
        assert res.fixes[0].before == written and res.fixes[0].where == f"(x:{written})"


def test_node_label_typo_and_words() -> None:
    res = fix_query_graph(_graph(Symbol("x", "Diseaze"), Symbol("y", "Gnee/Protein"),
                                 Symbol("z", "Gene"), target="x"), _toy())
    assert [s.label for s in res.graph.symbols.values()] == ["disease", "gene/protein",
                                                              "gene/protein"]
    assert res.kinds == ["node_label_typo", "node_label_typo", "node_label_words"]
    assert "did you mean 'disease'" in res.fixes[0].note


def test_unknown_or_ambiguous_label_is_left_alone() -> None:
    for written in ("Cell", "dr", "zz", "x" * 300, "Protien", "!!"):
        res = fix_query_graph(_graph(Symbol("x", written), target="x"), _toy())
        assert res.fixes == [] and res.graph.symbols["x"].label == written
    assert fix_query_graph(_graph(Symbol("x", "Drg!"), target="x"), _toy()).kinds == [
        "node_label_typo"]
    # one edit from two types: no guess
    schema = _toy()
    schema.node_types["drum"] = NodeType("drum", "drum")
    assert fix_query_graph(_graph(Symbol("x", "druX"), target="x"), schema).fixes == []
    # a schema name under four characters gets no typo match
    schema.node_types["ppi"] = NodeType("ppi", "ppi")
    assert fix_query_graph(_graph(Symbol("x", "api"), target="x"), schema).fixes == []
    assert fix_query_graph(_graph(Symbol("x", "PPI"), target="x"), schema).kinds == [
        "node_label"]


def test_edge_label_normalised_typo_and_words() -> None:
    g = _graph(Symbol("d", "drug"), Symbol("x", "disease"), Symbol("g", "gene/protein"),
               Symbol("h", "gene/protein"),
               triplets=[Triplet("d", "INDICATIONS", "x"),
                         Triplet("d", "drug_targest_gene_protein", "g"),
                         Triplet("g", "INTERACTS_WITH", "h", False),
                         Triplet("d", "TREATS", "x")], target="d")
    res = fix_query_graph(g, _toy(directed=False))
    assert [t.edge for t in res.graph.triplets] == ["indication", "target", "ppi", "TREATS"]
    assert res.kinds == ["edge_label", "edge_label_typo", "edge_label_words"]
    assert res.fixes[2].where == "(g)-[:INTERACTS_WITH]-(h)"


def test_words_need_both_node_types() -> None:
    g = _graph(Symbol("d", "drug"), Symbol("x"), triplets=[Triplet("d", "INDICATED", "x")],
               target="d")
    assert fix_query_graph(g, _toy()).fixes == []


def test_direction() -> None:
    g = _graph(Symbol("x", "disease"), Symbol("d", "drug"), Symbol("g", "gene/protein"),
               Symbol("h", "gene/protein"), Symbol("u"),
               triplets=[Triplet("x", "indication", "d"),       # reversed: flipped
                         Triplet("g", "target", "u"),           # reversed, one end unknown
                         Triplet("x", "indication", "d", False),  # undirected: kept
                         Triplet("h", "ppi", "g"),              # same type both ends: kept
                         Triplet("g", "related", "d"),          # ends not declared: kept
                         Triplet("x", "indication", "d", True, 1, 2)],  # multi-hop: kept
               target="d")
    res = fix_query_graph(g, _toy())
    assert [(t.head, t.tail) for t in res.graph.triplets] == [
        ("d", "x"), ("u", "g"), ("x", "d"), ("h", "g"), ("g", "d"), ("x", "d")]
    assert res.kinds == ["direction", "direction"]
    assert res.fixes[0].before == "(x)-[:indication]->(d)"
    assert res.fixes[0].after == "(d)-[:indication]->(x)"
    # an undirected SKB: nothing is flipped
    assert fix_query_graph(g, _toy(directed=False)).fixes == []


def test_properties_mapped_and_dropped() -> None:
    d = Symbol("d", "drug", [Condition("MolecularWeight", ">", 300),
                             Condition("weight", "<", 900),
                             Condition("drug_name", "=", "Zorvatinib"),
                             Condition("aproval_date", ">=", "2001-01-01"),
                             Condition("approval_year", "=", 2001),
                             Condition("Name", "CONTAINS", "tinib")])
    g = _graph(d, Symbol("x", "disease", [Condition("severity", "=", "high")]),
               Symbol("u", None, [Condition("whatever", "=", 1)]),
               triplets=[Triplet("d", "indication", "x")], target="d")
    res = fix_query_graph(g, _toy(), TOY_ATTRIBUTES)
    conds = [(c.attribute, c.value) for c in res.graph.symbols["d"].conditions]
    assert conds == [("molecular_weight", 300), ("molecular_weight", 900),
                     ("name", "Zorvatinib"), ("approval_date", "2001-01-01"),
                     ("Name", "tinib")]
    assert res.graph.symbols["d"].is_constant
    assert res.graph.symbols["x"].conditions == []
    assert res.graph.symbols["u"].conditions == [Condition("whatever", "=", 1)]
    assert res.kinds == ["property", "property", "property", "property_typo",
                         "dropped_property", "dropped_property"]
    dropped = [f for f in res.fixes if f.kind == "dropped_property"]
    assert dropped[0].before == "d.approval_year = 2001" and dropped[0].after is None
    assert [d.text for d in res.graph.dropped] == ["d.approval_year = 2001",
                                                   "x.severity = 'high'"]
    # without a catalogue, or for a type it does not list, conditions are not checked
    assert fix_query_graph(g, _toy()).fixes == []
    assert fix_query_graph(g, _toy(), {"drug": TOY_ATTRIBUTES["drug"]}).kinds.count(
        "dropped_property") == 1


def test_missing_return_uses_target_type() -> None:
    g = parse_cypher("MATCH (d:drug)-[:target]->(g:gene/protein)")
    assert g.target == "g" and any("no usable RETURN" in d.reason for d in g.dropped)
    res = fix_query_graph(g, _toy(), target_type="Drug")
    assert res.graph.target == "d" and res.kinds == ["target"]
    assert res.fixes[0] == Fix("target", "RETURN", "g", "d", res.fixes[0].note)
    notes = [d.reason for d in res.graph.dropped if "no usable RETURN" in d.reason]
    assert notes == ["no usable RETURN: target set to d (the predicted drug)"]
    # a graph with no target at all
    bare = _graph(Symbol("a", "disease"), Symbol("b", "drug"),
                  triplets=[Triplet("b", "indication", "a")])
    assert fix_query_graph(bare, _toy(), target_type="disease").graph.target == "a"
    # an explicit RETURN wins; an unknown or absent target type changes nothing
    given_ = parse_cypher("MATCH (d:drug)-[:target]->(g:gene/protein) RETURN g")
    assert fix_query_graph(given_, _toy(), target_type="drug").fixes == []
    assert fix_query_graph(g, _toy(), target_type="pathway").fixes == []
    assert fix_query_graph(g, _toy()).fixes == []


def test_input_is_not_mutated() -> None:
    for case in CASES:
        schema, attributes = SCHEMAS[case["schema"]]
        graph = parse_cypher(case["cypher"])
        snapshot = copy.deepcopy(graph)
        symbols = dict(graph.symbols)
        conditions = {v: list(s.conditions) for v, s in graph.symbols.items()}
        result = fix_query_graph(graph, schema, attributes, target_type=case["target_type"])
        assert graph == snapshot, case["id"]
        assert graph.symbols == symbols and all(
            graph.symbols[v] is symbols[v] and graph.symbols[v].conditions == conditions[v]
            for v in symbols)
        assert result.graph is not graph
        assert all(result.graph.symbols[v] is not graph.symbols[v] for v in graph.symbols)


def test_valid_graph_gets_no_fixes() -> None:
    for key, (schema, attributes) in SCHEMAS.items():
        for node_type in schema.node_types.values():
            edges = [e for e in schema.edge_types.values() if e.source_type == node_type.type]
            for e in edges[:3]:
                conds = [Condition(a, "=", 1) for a in list(attributes.get(e.source_type, ()))[:2]]
                g = _graph(Symbol("a", e.source_type, [Condition("name", "=", "x"), *conds]),
                           Symbol("b", e.target_type),
                           triplets=[Triplet("a", e.type, "b"), Triplet("a", e.label, "b"),
                                     Triplet("b", e.type, "a", False)], target="b")
                res = fix_query_graph(g, schema, attributes, target_type=e.target_type)
                assert res.fixes == [], (key, e.type, res.fixes)
                assert res.graph.to_dict() == g.to_dict()


def test_fix_records_are_plain_data() -> None:
    fields = [f.name for f in dataclasses.fields(Fix)]
    assert fields == ["kind", "where", "before", "after", "note"]
    res = _fix("MATCH (d:Drugs) RETURN d", "prime")
    assert dataclasses.asdict(res.fixes[0]) == {
        "kind": "node_label", "where": "(d:Drugs)", "before": "Drugs", "after": "drug",
        "note": "case, separators or plural"}
    assert isinstance(res.graph.dropped, list) and all(isinstance(d, Dropped)
                                                       for d in res.graph.dropped)


# -- properties: any graph --------------------------------------------------------------

_SCHEMA_KEYS = sorted(SCHEMAS)


def _mangle(name: str, how: int) -> str:
    if how == 0:
        return name.upper()
    if how == 1:
        return name.title().replace("/", "").replace("_", "").replace(" ", "") + "s"
    if how == 2 and len(name) > 4:
        return name[:2] + name[3] + name[2] + name[4:]
    if how == 3:
        return name.replace("_", " ").replace("/", "_")
    return name


@st.composite
def schema_graphs(draw: st.DrawFn) -> tuple[str, QueryGraph, str | None]:
    """A random query graph with labels, relations and attributes drawn (and mangled)
    from one of the test schemas, or from the parser's own random vocabulary."""
    key = draw(st.sampled_from(_SCHEMA_KEYS))
    schema, attributes = SCHEMAS[key]
    graph = draw(query_graphs())
    types = sorted(schema.node_types)
    edges = sorted(schema.edge_types)
    for sym in graph.symbols.values():
        if draw(st.booleans()):
            sym.label = _mangle(draw(st.sampled_from(types)), draw(st.integers(0, 5)))
        paths = sorted({p for ps in attributes.values() for p in ps})
        if paths and draw(st.booleans()):
            sym.conditions = [
                Condition(_mangle(draw(st.sampled_from(paths)), draw(st.integers(0, 5))),
                          c.op, c.value) for c in sym.conditions]
    graph.triplets = [
        Triplet(t.head, _mangle(draw(st.sampled_from(edges)), draw(st.integers(0, 5))),
                t.tail, t.directed, t.min_hops, t.max_hops)
        if draw(st.booleans()) else t for t in graph.triplets]
    if draw(st.booleans()):
        graph.target = None
    target_type = draw(st.none() | st.sampled_from(types))
    return key, graph.validate(), target_type


def _check_fix(key: str, graph: QueryGraph, target_type: str | None) -> None:
    schema, attributes = SCHEMAS[key]
    before = copy.deepcopy(graph)
    once = fix_query_graph(graph, schema, attributes, target_type=target_type)
    assert graph == before
    assert once.graph.problems() == []
    assert all(f.kind in FIX_KINDS for f in once.fixes)
    twice = fix_query_graph(once.graph, schema, attributes, target_type=target_type)
    assert twice.fixes == [], twice.fixes
    assert twice.graph.to_dict() == once.graph.to_dict()
    # fixes only change, never add: the same symbols, the same number of triplets
    assert list(once.graph.symbols) == list(graph.symbols)
    assert len(once.graph.triplets) == len(graph.triplets)


@settings(FAST, max_examples=300)
@given(schema_graphs())
def test_fixing_any_graph_is_valid_and_idempotent(case: tuple) -> None:
    _check_fix(*case)


@settings(FAST, max_examples=150)
@given(st.sampled_from(_SCHEMA_KEYS), grammatical_queries(), st.none() | st.sampled_from(
    ["drug", "paper", "product", "class", "Gene/Protein"]))
def test_fixing_parsed_queries_is_valid_and_idempotent(key: str, case: tuple,
                                                       target_type: str | None) -> None:
    _check_fix(key, parse_cypher(case[0]), target_type)


@settings(FAST, max_examples=150)
@given(st.sampled_from(_SCHEMA_KEYS), mutated_queries())
def test_fixing_mutated_queries_is_valid_and_idempotent(key: str, text: str) -> None:
    _check_fix(key, parse_cypher(text), "drug")
