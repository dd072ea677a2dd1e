"""The name index (folded names and aliases, point lookups) and the rule that every exact
name match of a constant enters scope at level 1, on both stores."""

from __future__ import annotations

from pathlib import Path

import grounding_oracle as oracle
from settings_util import settings_of
from skbutil import write_skb

from afr.embed.hashing import HashingEmbedder
from afr.ground import GroundingQuery, GSymbol, GTriplet, ground
from afr.ground.schedule import candidate_levels, level_of_candidate, scope_schedule
from afr.load import load_skb_dir
from afr.pipeline.ask import Pipeline
from afr.store import Store
from afr.store.names import NAMES_META_KEY, lookup_names
from afr.text import fold_name
from afr.vectors import embed_store

# Four teams share the name "Red Lions"; one more is "Zoë Müller" with an alias; each team
# has one player.
SCHEMA = {"name": "teams", "directed": True,
          "node_types": {"team": {}, "player": {}},
          "edge_types": {"plays_for": {"source": "player", "target": "team"}}}


def make(store: Store, tmp_path: Path) -> None:
    nodes = ([{"id": i, "type": "team", "name": "Red Lions", "text": f"team {i}"}
              for i in range(4)]
             + [{"id": 4, "type": "team", "name": "Zoë  Müller", "aliases": ["ZM United"],
                 "text": "team 4"},
                {"id": 5, "type": "team", "name": "Red Lion", "text": "a red lion team"}]
             + [{"id": 10 + i, "type": "player", "name": f"Red Lions {i}",
                 "text": f"player {i}"} for i in range(6)])
    edges = [(10 + i, "plays_for", i) for i in range(6)]
    load_skb_dir(store, write_skb(tmp_path / "skb", SCHEMA, nodes, edges), progress=False)
    embed_store(store, HashingEmbedder(32), progress=False)


def test_fold_name() -> None:
    assert fold_name("  Zoë   MÜLLER ") == "zoe muller" == fold_name("zoe muller")
    assert fold_name("Straße") == fold_name("STRASSE")
    assert fold_name("") == ""


def test_candidate_levels() -> None:
    schedule = scope_schedule(100)
    assert candidate_levels(6, schedule) == [1, 2, 3, 5, 5, 8]
    assert candidate_levels(6, schedule, lead=1) == [1, 2, 3, 5, 5, 8]
    # four exact matches share level 1; the fifth candidate is the schedule's second
    assert candidate_levels(6, schedule, lead=4) == [1, 1, 1, 1, 2, 3]
    assert level_of_candidate(96, schedule, lead=4) == 93
    assert level_of_candidate(97, schedule, lead=4) is None
    assert candidate_levels(3, [], lead=2) == []


def test_lookup_is_folded(store: Store, tmp_path: Path) -> None:
    make(store, tmp_path)
    assert store.get_meta(NAMES_META_KEY) == "1"
    hits = lookup_names(store, ["RED LIONS", "zoe muller", "zm united", "nobody", "  "])
    assert hits[0] == [(0, "team"), (1, "team"), (2, "team"), (3, "team")]
    assert hits[1] == hits[2] == [(4, "team")]
    assert hits[3] == hits[4] == []


def test_exact_matches_enter_at_level_one(store: Store, tmp_path: Path) -> None:
    make(store, tmp_path)
    query = GroundingQuery(
        {"t": GSymbol("t", "team", candidates=(2, 0, 3, 1, 5, 4), lead=4),
         "p": GSymbol("p", "player")},
        (GTriplet("p", "plays_for", "t"),), "p")
    result = ground(store, query, k=100, l_max=10)
    assert result.answers == [(10, 1), (11, 1), (12, 1), (13, 1), (15, 2), (14, 3)]
    edges = [(10 + i, "plays_for", i) for i in range(6)]
    types = {i: "team" for i in range(6)} | {10 + i: "player" for i in range(6)}
    skb = oracle.Skb(types, edges, True, ["plays_for"])
    assert oracle.ground(skb, query, k=100, l_max=10).answers == result.answers
    # with k = 4 the first level already holds all four teams' players
    assert ground(store, query, k=4, l_max=10).answers == result.answers[:4]


def test_ask_puts_every_namesake_at_level_one(store: Store, tmp_path: Path) -> None:
    make(store, tmp_path)
    pipeline = Pipeline(store, settings_of(llm__offline=True, ask__k=10, af__l_max=10))
    result = pipeline.ask("players of the red lions",
                          cypher='MATCH (p:player)-[:plays_for]->(t:team {name: "red lions"}) '
                                 'RETURN p', target_type="player")
    assert result.symbols["t"].exact == 4
    graph = {a.node_id: a.level for a in result.answers if a.source != "vss"}
    assert {node for node, level in graph.items() if level == 1} == {10, 11, 12, 13}
    rows = store.query("SELECT node_id, level FROM run_symbols WHERE run_id = $r AND rank <= 4"
                       if store.dialect.name == "duckdb" else
                       "SELECT node_id, level FROM run_symbols WHERE run_id = %(r)s "
                       "AND rank <= 4", {"r": result.run_id})
    assert sorted(rows) == [(0, 1), (1, 1), (2, 1), (3, 1)]


def test_store_without_index_scans(store: Store, tmp_path: Path) -> None:
    """A store loaded before the name index: lookups fall back to the lower() scan."""
    make(store, tmp_path)
    store.run("names/clear.sql")
    store.set_meta(NAMES_META_KEY, "0")
    pipeline = Pipeline(store, settings_of(llm__offline=True, ask__k=10, af__l_max=10, ask__log=False))
    result = pipeline.ask("q", cypher='MATCH (p:player)-[:plays_for]->(t:team '
                                      '{name: "Red Lions"}) RETURN p', target_type="player")
    assert result.symbols["t"].exact == 4
    assert sorted(result.symbols["t"].ids[:4]) == [0, 1, 2, 3]
