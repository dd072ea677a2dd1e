"""`afr runs` browses the run log (issue 10, item 16): recent runs, one run in full with
its candidates and answers with provenance, by id prefix, as text or JSON."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from afr.cli.main import cli
from click.testing import CliRunner
from settings_util import settings_of
from skbutil import write_skb

from afr.embed import make_embedder
from afr.errors import AfrError
from afr.load import load_skb_dir
from afr.pipeline.ask import Pipeline
from afr.pipeline.runs import find_run, list_runs, run_details
from afr.store import DuckDBStore, Store
from afr.vectors import embed_store

SCHEMA = {"name": "zoo", "directed": True,
          "node_types": {"animal": {}, "keeper": {}},
          "edge_types": {"feeds": {"source": "keeper", "target": "animal"}}}
NODES = [{"id": "k1", "type": "keeper", "name": "Alice"},
         {"id": "k2", "type": "keeper", "name": "Bob"},
         {"id": "a1", "type": "animal", "name": "Zebra"},
         {"id": "a2", "type": "animal", "name": "Lion"},
         {"id": "a3", "type": "animal", "name": "Otter"}]
EDGES = [("k1", "feeds", "a1"), ("k1", "feeds", "a2"), ("k2", "feeds", "a3")]
CYPHER = "MATCH (k:keeper {name: 'Alice'})-[:feeds]->(a:animal) RETURN a"


def _fill(store: Store, tmp_path: Path) -> list[str]:
    load_skb_dir(store, write_skb(tmp_path / "skb", SCHEMA, NODES, EDGES), progress=False)
    embed_store(store, make_embedder("hash"), progress=False)
    pipeline = Pipeline(store, settings_of(llm__offline=True, rerank__method="none"))
    first = pipeline.ask("Which animals does Alice feed?", cypher=CYPHER, target_type="animal")
    second = pipeline.ask("Which animals does Alice feed, again?", cypher=CYPHER,
                          target_type="animal")
    pipeline.ask("an eval question", cypher=CYPHER, target_type="animal", eval_id="e1",
                 question_id="q1")
    return [first.run_id, second.run_id]


def test_runs_are_listed_and_shown_from_the_run_log(store: Store, tmp_path: Path) -> None:
    first, second = _fill(store, tmp_path)
    listed = list_runs(store)
    assert {r.run_id for r in listed} == {first, second}  # eval runs only with with_eval
    assert len(list_runs(store, with_eval=True)) == 3
    assert all(r.top_answer in ("Zebra", "Lion") and r.answers >= 2 for r in listed)
    assert find_run(store, first[:8]) == first
    run = run_details(store, find_run(store, first[:8]))
    assert run.question == "Which animals does Alice feed?" and run.mode == "offline"
    assert run.cypher == CYPHER and "4_symbols" in run.timings
    assert run.symbols["k"][0]["name"] == "Alice" and run.symbols["k"][0]["rank"] == 1
    graph = [a for a in run.answers if a["source"] in ("graph", "both") and a["level"] == 1]
    assert {a["name"] for a in graph} == {"Zebra", "Lion"}
    assert all(a["provenance"]["linked_by"]["k"][0]["name"] == "Alice" for a in graph)
    json.dumps(run.to_dict())  # JSON-ready
    for bad in ("zz", "no-such", ""):
        with pytest.raises(AfrError):
            find_run(store, bad)


def test_afr_runs_and_runs_show(tmp_path: Path) -> None:
    db = tmp_path / "afr.duckdb"
    store = DuckDBStore(db)
    first, _ = _fill(store, tmp_path)
    store.close()
    runner = CliRunner()
    listed = runner.invoke(cli, ["--db", str(db), "runs"])
    assert listed.exit_code == 0, listed.output
    assert "Which animals does Alice feed?" in listed.stdout and "Lion" in listed.stdout
    assert "an eval question" not in listed.stdout
    assert "an eval question" in runner.invoke(cli, ["--db", str(db), "runs", "--all"]).stdout
    data = json.loads(runner.invoke(cli, ["--db", str(db), "runs", "--json"]).stdout)
    assert {r["run_id"] for r in data["runs"]} >= {first} and data["store"]
    shown = runner.invoke(cli, ["--db", str(db), "runs", "show", first[:10]])
    assert shown.exit_code == 0, shown.output
    assert first in shown.stdout and "symbol k" in shown.stdout
    assert "k: Alice (rank 1)" in shown.stdout
    data = json.loads(runner.invoke(cli, ["--db", str(db), "runs", "show", first[:10],
                                          "--json"]).stdout)
    assert data["run_id"] == first and data["answers"][0]["provenance"]
    missing = runner.invoke(cli, ["--db", str(db), "runs", "show", "ffffffffffff"])
    assert missing.exit_code != 0 and missing.output.startswith("afr: error: no run")
