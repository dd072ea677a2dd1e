"""Provenance: every graph answer records its level and the named entities that link it,
and those links are real edges to candidates that were in scope at that level."""

from __future__ import annotations

from pathlib import Path

from settings_util import settings_of

from afr.ground.schedule import level_of_rank, scope_schedule
from afr.pipeline.ask import Pipeline
from afr.store import DuckDBStore

CYPHER = ("MATCH (m:module {name: 'calendar'})-[:module_defines_exception]->(y:exception), "
          "(y)-[:exception_inherits_from_exception]->(b:exception {name: 'ValueError'}) "
          "RETURN y")


def test_graph_answers_name_their_links(demo_path: Path) -> None:
    store = DuckDBStore(demo_path)
    try:
        result = Pipeline(store, settings_of(llm__offline=True, af__l_max=20)).ask(
            "Which exceptions of calendar inherit from ValueError?", cypher=CYPHER,
            target_type="exception")
        edges = {(s, t, d) for s, t, d in store.query("SELECT src, type, dst FROM edges")}
        schedule = scope_schedule(20)
        graph = [a for a in result.answers if a.source in ("graph", "both")]
        assert graph, "the gold Cypher grounds"
        top = graph[0]
        assert top.ext_id.startswith("exception:calendar.Illegal")
        assert set(top.provenance["linked_by"]) == {"m", "b"}
        checked = 0
        for answer in graph:
            assert answer.provenance["level"] == answer.level
            for var, links in answer.provenance["linked_by"].items():
                cands = result.symbols[var].ids
                for link in links:
                    node, rank = link["node"], link["rank"]
                    assert cands[rank - 1] == node  # a real candidate, at its rank
                    assert link["level"] == level_of_rank(rank, schedule) <= answer.level
                    edge = ("defines_exception" if var == "m" else "exception_inherits")
                    pair = ((node, edge, answer.node_id) if var == "m"
                            else (answer.node_id, edge, node))
                    assert pair in edges  # the link is a stored edge, in the query's direction
                    checked += 1
        assert checked >= 2 * len(graph[:2])
        # the run log keeps it, queryable with SQL
        logged = store.query("SELECT provenance FROM run_answers WHERE run_id = $r AND "
                             "node_id = $n", {"r": result.run_id, "n": top.node_id})
        stored = logged[0].provenance  # JSON comes back decoded on both stores
        assert stored["linked_by"]["m"][0]["node"] == top.provenance["linked_by"]["m"][0]["node"]
    finally:
        store.close()


def test_vss_answers_have_no_links(demo_path: Path) -> None:
    store = DuckDBStore(demo_path)
    try:
        result = Pipeline(store, settings_of(llm__offline=True, ask__log=False)).ask(
            "Which exceptions of calendar inherit from ValueError?", cypher=CYPHER,
            target_type="exception")
        # a vector-search answer has ranking scores but no graph links
        assert all("linked_by" not in a.provenance for a in result.answers
                   if a.source == "vss")
    finally:
        store.close()
