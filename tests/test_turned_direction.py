"""A relationship between two nodes of one type written the wrong way round (issue 27:
the mistakes an LLM makes in Cypher). The schema allows both directions, so no fix of
step 3a sees it; the data does: the named node has no such relation that way, and has it
the other. Turned round only then: never for a name no node has exactly, nor when the
written direction grounds answers at the first level. DuckDB and PostgreSQL."""

from __future__ import annotations

import json
from pathlib import Path

from afr.cli.main import cli
from click.testing import CliRunner
from settings_util import settings_of
from skbutil import write_skb

from afr.embed.hashing import HashingEmbedder
from afr.lexical import build_lexical_index
from afr.load import load_skb_dir
from afr.methods.af.grounding import DIRECTION_DATA, ground_cypher
from afr.pipeline.ask import Pipeline
from afr.store import Store
from afr.vectors import embed_store

ENTAILS = "verb_concept_entails_verb_concept"
SCHEMA = {
    "name": "verbs", "directed": True, "candidate_types": ["verb_concept", "word"],
    "node_types": {"verb_concept": {}, "word": {}},
    "edge_types": {
        "entails": {"source": "verb_concept", "target": "verb_concept", "label": ENTAILS},
        "can_mean": {"source": "word", "target": "verb_concept",
                     "label": "word_can_mean_verb_concept"},
    },
}
NODES = [{"id": 1, "type": "verb_concept", "name": "sleep", "text": "be asleep"},
         {"id": 2, "type": "verb_concept", "name": "snore", "text": "breathe noisily asleep"},
         {"id": 3, "type": "verb_concept", "name": "dream", "text": "have dreams asleep"},
         {"id": 4, "type": "verb_concept", "name": "buy", "text": "obtain by paying"},
         {"id": 5, "type": "verb_concept", "name": "pay", "text": "settle a debt"},
         {"id": 6, "type": "verb_concept", "name": "pay off", "text": "settle in full"},
         {"id": 7, "type": "verb_concept", "name": "tip", "text": "give money for service"},
         {"id": 8, "type": "verb_concept", "name": "give", "text": "transfer possession"},
         {"id": 10, "type": "word", "name": "kip", "text": "kip"}]
EDGES = [(2, "entails", 1), (3, "entails", 1), (4, "entails", 5), (5, "entails", 8),
         (7, "entails", 6), (10, "can_mean", 1)]


def _cypher(left: str, right: str) -> str:
    return f"MATCH ({left})-[:{ENTAILS}]->({right}) RETURN y"


REVERSED = _cypher('s:verb_concept {name: "sleep"}', "y:verb_concept")


def _load(store: Store, tmp_path: Path) -> Store:
    load_skb_dir(store, write_skb(tmp_path / "skb", SCHEMA, NODES, EDGES), progress=False)
    embed_store(store, HashingEmbedder(32), progress=False)
    build_lexical_index(store, progress=False)
    return store


def _session(store: Store, **settings):
    return Pipeline(store, settings_of(llm__offline=True, rerank__method="none",
                                       **settings)).session


def _first_level(grounded) -> list[int]:
    result = grounded.result
    return sorted(n for n, level in result.answers if level <= result.levels[0])


def test_a_relationship_the_data_has_only_the_other_way_is_turned(store: Store,
                                                                  tmp_path: Path) -> None:
    session = _session(_load(store, tmp_path))
    grounded = ground_cypher(session, REVERSED)
    assert _first_level(grounded) == [2, 3]  # what entails sleeping: snore, dream
    (fix,) = grounded.fixes
    assert fix.kind == DIRECTION_DATA and fix.after == "(y)->(s)"
    assert grounded.resolved.triplets[0].head == "y"
    # the query graph the run log keeps is the one grounded, not the one written
    (turned,) = grounded.graph.triplets
    assert (turned.head, turned.tail) == ("y", "s")


def test_nothing_is_turned_where_the_data_does_not_say_so(store: Store,
                                                          tmp_path: Path) -> None:
    session = _session(_load(store, tmp_path))
    # the right way round: grounded as written
    right = ground_cypher(session, _cypher("y:verb_concept", 's:verb_concept {name: "sleep"}'))
    assert _first_level(right) == [2, 3] and right.fixes == []
    # buy entails pay: "what does buying entail" has its answer as written
    forward = ground_cypher(session, _cypher('s:verb_concept {name: "buy"}', "y:verb_concept"))
    assert _first_level(forward) == [5] and forward.fixes == []
    # pay has entails edges both ways: whatever the text condition leaves at the first
    # level, the data does not say the relationship is backwards
    money = ground_cypher(session, _cypher("y:verb_concept", 's:verb_concept {name: "pay"}')
                          .replace(" RETURN", ' WHERE y.text CONTAINS "money" RETURN'))
    assert money.fixes == [] and money.resolved.triplets[0].head == "y"
    # a name no node has exactly: its similar names are a guess, the direction is not
    # checked against them
    misspelt = ground_cypher(session, REVERSED.replace('"sleep"', '"sleeep"'))
    assert all(f.kind != DIRECTION_DATA for f in misspelt.fixes)
    # fixes off: as written
    off = ground_cypher(_session(store, af__fix=False), REVERSED)
    assert off.fixes == [] and off.resolved.triplets[0].head == "s"


def test_afr_cypher_run_lists_the_turn(duck_store: Store, tmp_path: Path) -> None:
    _load(duck_store, tmp_path).close()
    out = CliRunner().invoke(cli, ["--db", str(tmp_path / "afr.duckdb"), "cypher", REVERSED,
                                   "--run"])
    assert out.exit_code == 0, out.output
    assert f"fix: {DIRECTION_DATA}" in out.stderr
    assert "snore" in out.stdout and "dream" in out.stdout
    out = CliRunner().invoke(cli, ["--db", str(tmp_path / "afr.duckdb"), "cypher", REVERSED,
                                   "--run", "--json"])
    assert out.exit_code == 0, out.output
    assert [f["kind"] for f in json.loads(out.stdout)["fixes"]] == [DIRECTION_DATA]


def test_spark_counts_the_sides_duckdb_counts(duck_store: Store, spark_store: Store,
                                              tmp_path: Path) -> None:
    """The statement that reads the direction gives the same counts on Spark."""
    counts = []
    for store in (duck_store, spark_store):
        load_skb_dir(store, write_skb(tmp_path / str(store.dialect), SCHEMA, NODES, EDGES),
                     progress=False)
        counts.append([tuple(int(v) for v in store.run("ground/edge_sides.sql", {
            "ids": ids, "type": "entails"})[0]) for ids in ([1], [5], [1, 5], [10], [])])
    # (leaving, reaching): sleep is entailed twice; pay entails give and is entailed by buy
    assert counts[0] == counts[1] == [(0, 2), (1, 1), (1, 3), (0, 0), (0, 0)]
