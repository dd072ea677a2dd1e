"""Cypher's substring operators on names mean what Cypher means: ``b.name CONTAINS 'x'``
selects every node whose name or an alias contains ``x`` (case-insensitive, wildcards
literal, a space or a hyphen between words alike), all at scope level 1; with no match
the string is searched by similarity and a note says so. On both stores."""

from __future__ import annotations

from pathlib import Path

import pytest
from settings_util import settings_of
from skbutil import write_skb

from afr.cypher.model import Condition
from afr.embed.hashing import HashingEmbedder
from afr.load import load_skb_dir
from afr.methods.af.grounding import ground_cypher
from afr.pipeline.ask import Pipeline
from afr.retrieval.text_match import like_pattern, match_text
from afr.store import Store
from afr.vectors import embed_store

SCHEMA = {"name": "packages", "directed": True,
          "node_types": {"package": {}, "module": {}},
          "edge_types": {"provides": {"source": "package", "target": "module"}}}

PACKAGES = ["python-dateutil", "PyYAML", "typing_extensions", "typingXextensions",
            "100%pure", "100 pure", "requests", "mypython", "Pythonista"]


def make(store: Store, tmp_path: Path) -> None:
    nodes = [{"id": i, "type": "package", "name": name, "text": f"the {name} package",
              **({"aliases": ["snake-tools"]} if name == "requests" else {})}
             for i, name in enumerate(PACKAGES)]
    nodes += [{"id": 100 + i, "type": "module", "name": f"module {i}", "text": f"m {i}"}
              for i in range(len(PACKAGES))]
    edges = [(i, "provides", 100 + i) for i in range(len(PACKAGES))]
    load_skb_dir(store, write_skb(tmp_path / "skb", SCHEMA, nodes, edges), progress=False)
    embed_store(store, HashingEmbedder(32), progress=False)


def names(store: Store, ids: list[int]) -> list[str]:
    return sorted(PACKAGES[i] for i in ids)


def test_like_pattern_escapes_wildcards() -> None:
    assert like_pattern(Condition("name", "CONTAINS", "100%_X")) == "%100\\%\\_x%"
    assert like_pattern(Condition("name", "STARTS WITH", "a\\b")) == "a\\\\b%"
    assert like_pattern(Condition("name", "ENDS WITH", "Lib")) == "%lib"
    # a run of spaces or hyphens is one character of any kind: "black and white" finds
    # "black-and-white", and the other way round
    assert like_pattern(Condition("text", "CONTAINS", "Black-and  white")) == \
        "%black_and_white%"


@pytest.mark.parametrize("op, value, expected", [
    ("CONTAINS", "PYTHON", ["Pythonista", "mypython", "python-dateutil"]),
    ("STARTS WITH", "python", ["Pythonista", "python-dateutil"]),
    ("ENDS WITH", "python", ["mypython"]),
    ("CONTAINS", "g_e", ["typing_extensions"]),  # _ is no wildcard
    ("CONTAINS", "100%", ["100%pure"]),  # % is no wildcard
    ("CONTAINS", "snake", ["requests"]),  # an alias counts
    ("CONTAINS", "nothing like it", []),
    ("CONTAINS", "python dateutil", ["python-dateutil"]),  # a space finds a hyphen
    ("STARTS WITH", "python -- date", ["python-dateutil"]),
])
def test_match_text_on_names(store: Store, tmp_path: Path, op: str, value: str,
                             expected: list[str]) -> None:
    make(store, tmp_path)
    found = match_text(store, [Condition("name", op, value)], field="name",
                       node_type="package", limit=100)
    assert names(store, found) == expected


def test_match_text_restricted_and_combined(store: Store, tmp_path: Path) -> None:
    make(store, tmp_path)
    both = [Condition("name", "CONTAINS", "python"), Condition("name", "ENDS WITH", "ista")]
    assert names(store, match_text(store, both, field="name", limit=100)) == ["Pythonista"]
    assert match_text(store, both[:1], field="name", ids=[0, 1, 2], limit=100) == [0]
    assert match_text(store, both[:1], field="name", ids=[], limit=100) == []
    assert len(match_text(store, both[:1], field="name", limit=2)) == 2
    assert match_text(store, [Condition("text", "CONTAINS", "DATEUTIL")], field="text",
                      limit=10) == [0]


def test_name_contains_is_a_filter_at_level_one(store: Store, tmp_path: Path) -> None:
    make(store, tmp_path)
    pipeline = Pipeline(store, settings_of(llm__offline=True, ask__k=20, af__l_max=2, rerank__method="none"))
    grounded = ground_cypher(pipeline.session,
        "MATCH (p:package)-[:provides]->(m:module) WHERE p.name CONTAINS 'PYTHON' RETURN m")
    sym = grounded.symbols["p"]
    # every match, though l_max is 2, and nothing else; all of them at level 1
    assert names(store, sym.ids) == ["Pythonista", "mypython", "python-dateutil"]
    assert sym.exact == 3
    assert any("applied as a filter (3 nodes)" in n for n in sym.notes)
    assert grounded.result is not None
    assert sorted(grounded.result.answers) == [(100, 1), (107, 1), (108, 1)]


def test_name_pattern_without_match_is_searched(store: Store, tmp_path: Path) -> None:
    make(store, tmp_path)
    pipeline = Pipeline(store, settings_of(llm__offline=True, ask__k=20, af__l_max=2, rerank__method="none"))
    grounded = ground_cypher(pipeline.session,
        "MATCH (p:package)-[:provides]->(m:module) WHERE p.name STARTS WITH 'yaml' RETURN m")
    sym = grounded.symbols["p"]
    assert len(sym.ids) == 2  # the similarity search's l_max
    assert sym.exact == 0
    assert any("no name or alias matches; searched by similarity" in n for n in sym.notes)


def test_name_pattern_respects_the_other_filters(store: Store, tmp_path: Path) -> None:
    make(store, tmp_path)
    pipeline = Pipeline(store, settings_of(llm__offline=True, ask__k=20, af__l_max=5, rerank__method="none"))
    grounded = ground_cypher(pipeline.session,
        "MATCH (p:module)<-[:provides]-(q:package) WHERE q.name CONTAINS 'python' "
        "AND q.name STARTS WITH 'my' RETURN p")
    assert names(store, grounded.symbols["q"].ids) == ["mypython"]
    assert grounded.result is not None and grounded.result.answers == [(107, 1)]


UNICODE_TEXTS = ["Straße in MÜNCHEN", "ÉCOLE normale", "ΣΟΦΊΑ and σοφία", "İstanbul ıı",
                 "Ǆungla", "the KELVIN sign K", "ﬁne print", "plain ascii text",
                 "AÅÄÖ åäö", None, "Café au lait", "CAFÉ"]
UNICODE_VALUES = ["straße", "MÜNCHEN", "école", "σοφία", "ΣΟΦΊΑ", "İstanbul", "ı", "ǆ",
                  "kelvin", "k", "ﬁ", "å", "café", "", "%", "é", "ASCII"]


def test_text_conditions_fold_case_as_lower_does(store: Store, tmp_path: Path) -> None:
    """Every store's form of text_match.sql (the lower-cased copy the load kept; DuckDB's
    own ILIKE on a store without it) selects exactly the nodes whose lower-cased text holds
    the lower-cased value, as ``lower(text) LIKE`` computes it on that store, for text
    beyond ASCII."""
    _fold_case_as_lower_does(store, tmp_path)


def test_text_conditions_fold_case_as_lower_does_on_spark(spark_store: Store,
                                                          tmp_path: Path) -> None:
    _fold_case_as_lower_does(spark_store, tmp_path)


def _fold_case_as_lower_does(store: Store, tmp_path: Path) -> None:
    nodes = [{"id": i, "type": "doc", "name": f"doc {i}", **({"text": t} if t else {})}
             for i, t in enumerate(UNICODE_TEXTS)]
    schema = {"name": "texts", "directed": True, "node_types": {"doc": {}}, "edge_types": {}}
    load_skb_dir(store, write_skb(tmp_path / "skb", schema, nodes, []), progress=False)
    # DuckDB and PostgreSQL keep the texts lower-cased at load and LIKE that copy; Spark
    # folds per question
    assert store.has_lower_texts() == (store.dialect.name != "spark")
    lowered = store.dialect.finish(
        "SELECT id FROM nodes WHERE type = 'doc' AND lower(coalesce(text, '')) "
        "LIKE $p ESCAPE '\\' ORDER BY id")[-1]
    for copy in (True, False):  # then as a store loaded by an afr without the copy
        if not copy:
            store.delete_meta("skb_lower_texts")
            assert not store.has_lower_texts()
        for value in UNICODE_VALUES:
            for op in ("CONTAINS", "STARTS WITH", "ENDS WITH"):
                cond = Condition("text", op, value)
                found = match_text(store, [cond], field="text", node_type="doc", limit=100)
                portable = store.query(lowered, {"p": like_pattern(cond)})
                assert found == [int(r[0]) for r in portable], (copy, op, value)
