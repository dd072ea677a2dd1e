"""Cypher's alternative relationship types, ``-[:a|b]->``: a hop may take an edge of any
of them, each walked by its own direction, in the grounding SQL (over the edges and over
the adjacency lists), its provenance and every hop of a variable-length pattern; an
alternative the SKB lacks is dropped with a note, a misspelt one fixed. On both stores."""

from __future__ import annotations

from pathlib import Path

import pytest
from settings_util import settings_of
from skbutil import write_skb

from afr.embed.hashing import HashingEmbedder
from afr.ground.run import witnesses
from afr.load import load_skb_dir
from afr.methods.af.asked_class import _parent_relations
from afr.methods.af.grounding import GroundedCypher, ground_cypher
from afr.pipeline.ask import Pipeline
from afr.store import Store
from afr.vectors import embed_store

SCHEMA = {"name": "packages", "directed": True,
          "node_types": {"package": {}},
          "edge_types": {"depends": {"source": "package", "target": "package"},
                         "recommends": {"source": "package", "target": "package"},
                         "suggests": {"source": "package", "target": "package"},
                         "similar": {"source": "package", "target": "package",
                                     "directed": False}}}

NAMES = ["libc", "app", "tool", "game", "doc", "clone", "base", "extra"]
EDGES = [("app", "depends", "libc"),       # app depends on libc
         ("tool", "recommends", "libc"),   # tool recommends it
         ("game", "suggests", "libc"),     # only suggests: never an answer here
         ("libc", "depends", "base"),      # libc's own dependency: against the arrow
         ("libc", "similar", "clone"),     # undirected: read both ways
         ("extra", "recommends", "app"),   # two hops: extra -recommends-> app -depends-> libc
         ("doc", "suggests", "app")]


def grounded(store: Store, tmp_path: Path, cypher: str) -> GroundedCypher:
    nodes = [{"id": i, "type": "package", "name": name, "text": f"the {name} package"}
             for i, name in enumerate(NAMES)]
    edges = [(NAMES.index(a), e, NAMES.index(b)) for a, e, b in EDGES]
    load_skb_dir(store, write_skb(tmp_path / "skb", SCHEMA, nodes, edges), progress=False)
    embed_store(store, HashingEmbedder(32), progress=False)
    pipeline = Pipeline(store, settings_of(llm__offline=True, ask__k=20, af__l_max=1,
                                           rerank__method="none"))
    return ground_cypher(pipeline.session, cypher)


def answers(g: GroundedCypher) -> list[str]:
    assert g.result is not None
    return sorted(NAMES[node] for node, _ in g.result.answers)


@pytest.mark.parametrize("edge_lists", [True, False])
def test_a_hop_takes_any_of_the_types(store: Store, tmp_path: Path, edge_lists: bool,
                                      monkeypatch: pytest.MonkeyPatch) -> None:
    if not edge_lists:  # the plain edges table, as on a store without adjacency lists
        monkeypatch.setattr(type(store), "has_edge_lists", lambda self: False)
    g = grounded(store, tmp_path,
                 "MATCH (y:package)-[:depends|recommends]->(x:package {name: 'libc'}) "
                 "RETURN y")
    assert answers(g) == ["app", "tool"]
    assert not g.resolved.dropped
    # the provenance names libc for both, whichever type links them
    assert g.query is not None and g.result is not None
    links = witnesses(store, g.query, g.result.answers, l_max=1)
    assert {NAMES[n]: [NAMES[w["node"]] for w in by["x"]] for n, by in links.items()} \
        == {"app": ["libc"], "tool": ["libc"]}


@pytest.mark.parametrize("edge_lists", [True, False])
def test_each_type_keeps_its_own_direction(store: Store, tmp_path: Path, edge_lists: bool,
                                           monkeypatch: pytest.MonkeyPatch) -> None:
    if not edge_lists:
        monkeypatch.setattr(type(store), "has_edge_lists", lambda self: False)
    g = grounded(store, tmp_path,
                 "MATCH (y:package)-[:depends|similar]->(x:package {name: 'libc'}) RETURN y")
    # depends along its arrow only (base is libc's dependency, not a dependant); similar
    # is undirected, so clone counts though the stored edge starts at libc
    assert answers(g) == ["app", "clone"]
    assert any("similar is undirected" in n for n in g.resolved.notes)


def test_every_hop_of_a_variable_length_pattern_takes_any_type(store: Store,
                                                               tmp_path: Path) -> None:
    g = grounded(store, tmp_path,
                 "MATCH (y:package)-[:recommends|depends*1..2]->(x:package {name: 'libc'}) "
                 "RETURN y")
    assert answers(g) == ["app", "extra", "tool"]  # extra: recommends, then depends


def test_an_unknown_alternative_is_dropped_with_a_note(store: Store, tmp_path: Path) -> None:
    g = grounded(store, tmp_path,
                 "MATCH (y:package)-[:depends|conflicts_with]->(x:package {name: 'libc'}) "
                 "RETURN y")
    assert answers(g) == ["app"]
    assert any("'conflicts_with' is not an edge type" in d and "keeps depends" in d
               for d in g.resolved.dropped)


def test_a_misspelt_alternative_is_fixed(store: Store, tmp_path: Path) -> None:
    g = grounded(store, tmp_path,
                 "MATCH (y:package)-[:depends|recommend]->(x:package {name: 'libc'}) "
                 "RETURN y")
    assert answers(g) == ["app", "tool"]
    assert g.graph.triplets[0].edges == ("depends", "recommends")
    assert [(f.before, f.after) for f in g.fixes] == [("recommend", "recommends")]


# The offline class's hierarchy over these relations: the backbone (most nodes point out
# by it; ties to the first name) and the relations whose nodes take none of it, by at
# least two nodes (similar: one).
PARENTS = frozenset({"depends", "recommends", "suggests"})


def test_a_hierarchys_parent_relations(store: Store, tmp_path: Path) -> None:
    grounded(store, tmp_path, "MATCH (y:package) RETURN y")
    assert _parent_relations(store, store.skb_schema(), "package") == PARENTS


def test_the_same_answers_on_spark(spark_store: Store, tmp_path: Path) -> None:
    """Spark walks the alternatives as the other stores do (one load, every pattern),
    and reads a hierarchy's parent relations as they do."""
    load = grounded(spark_store, tmp_path, "MATCH (y:package) RETURN y")
    assert load.graph.target == "y"
    assert _parent_relations(spark_store, spark_store.skb_schema(), "package") == PARENTS
    pipeline = Pipeline(spark_store, settings_of(llm__offline=True, ask__k=20, af__l_max=1,
                                                 rerank__method="none"))
    expected = {"depends|recommends]->": ["app", "tool"],
                "depends|similar]->": ["app", "clone"],
                "recommends|depends*1..2]->": ["app", "extra", "tool"]}
    for pattern, names in expected.items():
        g = ground_cypher(pipeline.session, f"MATCH (y:package)-[:{pattern}"
                                            "(x:package {name: 'libc'}) RETURN y")
        assert answers(g) == names, pattern
