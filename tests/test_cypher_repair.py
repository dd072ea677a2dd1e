"""Issue 13 end to end: the deterministic fixes in steps 3–5, the one repair round
against the scripted OpenAI-compatible server (corrections, worse replies, timeouts),
run outcomes in the run log and the eval summary, the renderer and `afr cypher --fix`."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from afr.cli.main import cli
from click.testing import CliRunner
from fake_openai import FakeOpenAI, Reply, prompt_text
from settings_util import settings_of
from test_cypher_fix import CASES, SCHEMAS, _compact

from afr.cypher import parse_cypher
from afr.cypher.fix import fix_query_graph
from afr.cypher.hints import locate
from afr.cypher.render import render_cypher
from afr.methods.af.repair import OUTCOMES, run_outcome
from afr.pipeline.ask import Pipeline
from afr.settings import Settings
from afr.store import DuckDBStore

REPAIR_PHRASE = "does not work on this graph"
GOOD = ("MATCH (y:exception)-[:module_defines_exception]-(m:module {name: 'calendar'}), "
        "(y)-[:exception_inherits_from_exception]-(b:exception {name: 'ValueError'}) "
        "RETURN y")
GOLD = {"exception:calendar.IllegalMonthError", "exception:calendar.IllegalWeekdayError"}
# A relation no fix can place: strict mode drops it, and nothing constrains y any more.
BROKEN = ("MATCH (y:exception)-[:RAISED_INSIDE_OF]-(m:module {name: 'calendar'}) "
          "RETURN y")


def _responder(step2: str, repair: Reply | str):
    def reply(request: dict) -> Reply:
        text = prompt_text(request)
        if REPAIR_PHRASE in text:
            return repair if isinstance(repair, Reply) else Reply(repair)
        if "Reply with the type name" in text:
            return Reply("exception")
        if "Cypher" in text:
            return Reply(step2)
        return Reply("1")
    return reply


def _config(server: FakeOpenAI, **kw) -> Settings:
    llm = {"base_url": server.base_url, "model": "fake", "api_key": "x", "max_retries": 0,
           **kw.pop("llm", {})}
    return settings_of(rerank__method="none", llm=llm, **kw)


def _repair_calls(server: FakeOpenAI) -> int:
    return sum(REPAIR_PHRASE in prompt_text(r) for r in server.chat_requests())


def _logged(store: DuckDBStore, run_id: str) -> tuple:
    return store.query("SELECT outcome, fixes, repair, cypher FROM runs WHERE run_id = $r",
                       {"r": run_id})[0]


# -- the repair round ------------------------------------------------------------------


def test_scripted_correction_is_used_once_and_cached(demo: DuckDBStore) -> None:
    question = "Which calendar exceptions derive from ValueError? (repair: correction)"
    with FakeOpenAI(_responder(BROKEN, f"```cypher\n{GOOD}\n```")) as server:
        result = Pipeline(demo, _config(server)).ask(question)
        assert _repair_calls(server) == 1
        assert result.outcome == "repaired" and result.repair is not None
        assert result.repair.used and result.repair.original == BROKEN
        assert any("RAISED_INSIDE_OF" in p for p in result.repair.problems)
        assert result.cypher == GOOD
        assert {a.ext_id for a in result.answers[:2]} == GOLD
        assert "3_repair" in result.timings
        prompt = next(prompt_text(r) for r in server.chat_requests()
                      if REPAIR_PHRASE in prompt_text(r))
        assert BROKEN in prompt and "module_defines_exception" in prompt
        outcome, _, repair, cypher = _logged(demo, result.run_id)
        repair = json.loads(repair) if isinstance(repair, str) else repair
        assert outcome == "repaired" and repair["used"] and cypher == GOOD
        # Asked again: every call, the repair's too, comes from llm_calls.
        sent = len(server.chat_requests())
        again = Pipeline(demo, _config(server)).ask(question)
        assert len(server.chat_requests()) == sent and again.outcome == "repaired"


@pytest.mark.parametrize("reply", [
    "MATCH (y:exception)-[:NO_SUCH_THING]-(z:nothing {name: 'x'}) RETURN y",  # worse
    "I am sorry, I cannot write that query.",  # no query
    "MATCH (y:exception)-[:RAISED_INSIDE_OF]-(m:module {name: 'calendar'}) RETURN y",  # same
])
def test_a_reply_that_is_not_better_is_not_used(demo: DuckDBStore, reply: str) -> None:
    question = f"Which calendar exceptions derive from ValueError? (repair: {reply})"
    with FakeOpenAI(_responder(BROKEN, reply)) as server:
        result = Pipeline(demo, _config(server)).ask(question)
        assert _repair_calls(server) == 1
    assert result.repair is not None and not result.repair.used
    assert result.cypher == BROKEN and result.outcome in ("unanswerable", "failed")
    assert _logged(demo, result.run_id)[0] == result.outcome
    if "MATCH" in reply:  # a query, only no better: the round did its part
        assert result.status == "ok" and result.repair.failure is None
    else:  # no query in the reply: an unusable reply, counted (issue 23; "ok" before)
        assert result.status == "degraded" and result.llm_failure == "unusable"
        assert any(w.startswith("LLM reply unusable in the repair round (the repair reply "
                                "holds no query") for w in result.warnings), result.warnings


def test_a_reply_that_times_out_keeps_the_query(demo: DuckDBStore) -> None:
    question = "Which calendar exceptions derive from ValueError? (repair: timeout)"
    with FakeOpenAI(_responder(BROKEN, Reply(GOOD, delay_s=3))) as server:
        config = _config(server, llm__use_cache=False, llm={"timeout_s": 0.5})
        result = Pipeline(demo, config).ask(question)
        assert _repair_calls(server) == 1
    assert result.status == "degraded" and result.cypher == BROKEN
    assert any("repair round" in w for w in result.warnings)
    assert result.repair is not None and not result.repair.used
    assert result.outcome in ("unanswerable", "failed") and len(result.answers) > 0


def test_no_repair_when_the_query_works_or_when_switched_off(demo: DuckDBStore) -> None:
    with FakeOpenAI(_responder(GOOD, GOOD)) as server:
        result = Pipeline(demo, _config(server)).ask("Calendar errors from ValueError? (ok)")
        assert _repair_calls(server) == 0 and result.repair is None
        assert result.outcome == "valid" and "3_repair" not in result.timings
        off = Pipeline(demo, _config(server, af__repair=False)).ask(
            "Calendar errors from ValueError? (off)")
        assert _repair_calls(server) == 0 and off.repair is None
    # Offline (no LLM): never a repair round.
    offline = Pipeline(demo, settings_of(llm__offline=True, rerank__method="none")).ask(
        "x", cypher=BROKEN, target_type="exception")
    assert offline.repair is None and offline.outcome in ("unanswerable", "failed")


def test_at_most_one_repair_call_per_question(demo: DuckDBStore) -> None:
    """Whatever the replies, a question sends one repair prompt at most."""
    with FakeOpenAI(_responder(BROKEN, BROKEN)) as server:
        pipeline = Pipeline(demo, _config(server, llm__use_cache=False))
        for i in range(3):
            pipeline.ask(f"Which calendar exceptions derive from ValueError? (loop {i})")
        assert _repair_calls(server) == 3


# -- deterministic fixes in steps 3–5, outcomes ----------------------------------------


def test_fixes_in_ask_and_run_log(demo: DuckDBStore) -> None:
    noisy = ("MATCH (y:Exceptions)-[:MODULE_DEFINES_EXCEPTIONS]-(m:Module {name: 'calendar'}),"
             " (y)-[:exception_inherits_from_exception]-(b:Exception {name: 'ValueError'})"
             " WHERE y.docstring CONTAINS 'month' RETURN y")
    pipeline = Pipeline(demo, settings_of(llm__offline=True, rerank__method="none"))
    result = pipeline.ask("Calendar errors from ValueError", cypher=noisy,
                          target_type="exception")
    kinds = [f.kind for f in result.fixes]
    assert kinds.count("node_label") == 3 and "edge_label" in kinds
    assert "dropped_property" in kinds
    assert result.outcome == "fixed"
    assert {a.ext_id for a in result.answers[:2]} == GOLD
    data = result.to_dict()
    assert data["outcome"] == "fixed" and data["fixes"][0]["kind"] == "node_label"
    outcome, fixes, _, _ = _logged(demo, result.run_id)
    fixes = json.loads(fixes) if isinstance(fixes, str) else fixes
    assert outcome == "fixed" and [f["kind"] for f in fixes] == kinds
    # The dropped condition's text still reaches the search as a hint (a variable here:
    # its filter is noted, not lost).
    assert any("docstring" in n for n in result.symbols["y"].notes)
    # --no-fix: the query as written loses its relation to the module.
    raw = Pipeline(demo, settings_of(llm__offline=True, rerank__method="none", af__fix=False)).ask(
        "Calendar errors from ValueError", cypher=noisy, target_type="exception")
    assert raw.fixes == [] and raw.outcome == "valid"
    assert any("MODULE_DEFINES_EXCEPTIONS" in d for d in raw.resolved.dropped)
    assert not any("MODULE_DEFINES" in d for d in result.resolved.dropped)


def test_dropped_property_is_folded_into_a_constants_search(demo: DuckDBStore) -> None:
    cypher = ("MATCH (y:exception)-[:module_defines_exception]-"
              "(m:module {name: 'calendar'}) WHERE m.docstring CONTAINS 'dates' RETURN y")
    pipeline = Pipeline(demo, settings_of(llm__offline=True, rerank__method="none"))
    result = pipeline.ask("calendar exceptions", cypher=cypher, target_type="exception")
    assert [f.kind for f in result.fixes] == ["dropped_property"]
    assert "docstring dates" in (result.symbols["m"].search or "")


def test_run_outcome_rule() -> None:
    assert run_outcome(fixes=0, repaired=False, grounded=3, top_vss=0.1, weak_vss=0.25) \
        == "valid"
    assert run_outcome(fixes=2, repaired=False, grounded=3, top_vss=0.1, weak_vss=0.25) \
        == "fixed"
    assert run_outcome(fixes=2, repaired=True, grounded=1, top_vss=0.9, weak_vss=0.25) \
        == "repaired"
    assert run_outcome(fixes=0, repaired=False, grounded=0, top_vss=0.1, weak_vss=0.25) \
        == "unanswerable"
    assert run_outcome(fixes=0, repaired=False, grounded=0, top_vss=None, weak_vss=0.25) \
        == "unanswerable"
    assert run_outcome(fixes=1, repaired=False, grounded=0, top_vss=0.5, weak_vss=0.25) \
        == "failed"
    assert run_outcome(fixes=1, repaired=True, grounded=3, top_vss=0.5, weak_vss=0.25,
                       relaxed=True) == "relaxed"
    assert set(OUTCOMES) == {"valid", "fixed", "repaired", "relaxed", "unanswerable",
                             "failed"}


def test_eval_counts_and_compares_outcomes(demo_path: Path, tmp_path: Path) -> None:
    runner = CliRunner()

    def run(*args: str) -> dict:
        res = runner.invoke(cli, ["--db", str(demo_path), "--no-progress", "eval", "run",
                                  "demo", "--replay", "cypher_noisy", "--reranker", "none",
                                  "--offline", "--limit", "12", "--json", *args],
                            catch_exceptions=False)
        assert res.exit_code == 0, res.output
        return json.loads(res.stdout)

    fixed, raw = run(), run("--no-fix")
    assert sum(fixed["outcomes"].values()) == 12 and sum(raw["outcomes"].values()) == 12
    assert raw["outcomes"]["fixed"] == 0
    shown = runner.invoke(cli, ["--db", str(demo_path), "eval", "show", fixed["eval_id"]])
    assert "outcomes:" in shown.output and "valid" in shown.output
    compared = runner.invoke(cli, ["--db", str(demo_path), "eval", "compare",
                                   raw["eval_id"], fixed["eval_id"]])
    assert compared.exit_code == 0 and "outcome" in compared.output


# -- afr cypher: hints, fixes, --fix ---------------------------------------------------


def test_cli_cypher_fix(demo_path: Path) -> None:
    runner = CliRunner()
    query = ("MATCH (y:Exceptions)-[:EXCEPTION_INHERITS_FROM_EXCEPTON]-\n"
             "      (b:Exception {name: 'ValueError'}) WHERE y.num_method > 1 RETURN y")
    res = runner.invoke(cli, ["--db", str(demo_path), "cypher", query, "--fix"])
    assert res.exit_code == 0, res.output
    assert res.stdout.strip() == (
        'MATCH (y:exception)-[:exception_inherits]-'
        '(b:exception {name: "ValueError"}) WHERE y.num_methods > 1 RETURN y')
    assert "fix: edge_label_typo" in res.stderr
    assert "^^^^^^^^^^ did you mean 'exception'?" in res.stderr
    assert "did you mean 'num_methods'?" in res.stderr
    assert "2 |       (b:Exception" in res.stderr
    # The fixed query is fixed: nothing left to do.
    again = runner.invoke(cli, ["--db", str(demo_path), "cypher", res.stdout.strip(),
                                "--fix"])
    assert again.exit_code == 0 and "fix:" not in again.stderr
    data = json.loads(runner.invoke(cli, ["--db", str(demo_path), "cypher", query,
                                          "--json"]).stdout)
    assert [f["kind"] for f in data["fixes"]].count("node_label") == 2
    run = runner.invoke(cli, ["--db", str(demo_path), "cypher", query, "--run"])
    assert run.exit_code == 0 and "exception:" in run.stdout


# -- the renderer ----------------------------------------------------------------------


@pytest.mark.parametrize("case", CASES, ids=[c["id"] for c in CASES])
def test_render_reads_back_the_same_graph(case: dict) -> None:
    schema, attributes = SCHEMAS[case["schema"]]
    for graph in (parse_cypher(case["cypher"]),
                  fix_query_graph(parse_cypher(case["cypher"]), schema, attributes,
                                  target_type=case["target_type"]).graph):
        if not graph.symbols:
            continue
        text = render_cypher(graph)
        again = parse_cypher(text)
        assert _compact(again) == _compact(graph), text
        assert [(t.min_hops, t.max_hops) for t in again.triplets] == [
            (t.min_hops, t.max_hops) for t in graph.triplets]


def test_hint_positions() -> None:
    text = "MATCH (d:Drugs)\n-[:INDICATON]->(x) WHERE d.weigth > 3 RETURN d"
    res = fix_query_graph(parse_cypher(text), SCHEMAS["prime"][0],
                          {"drug": ["molecular_weight", "weight"]})
    where = {f.kind: locate(text, f) for f in res.fixes}
    assert (where["node_label"].line, where["node_label"].column) == (0, 9)
    assert (where["edge_label_typo"].line, where["edge_label_typo"].column) == (1, 3)
    assert where["property_typo"].line == 1 and text.splitlines()[1][
        where["property_typo"].column:].startswith("weigth")


def test_a_given_query_is_repaired_only_when_asked(demo: DuckDBStore) -> None:
    """Replayed or hand-written Cypher stays as given unless --repair says otherwise."""
    with FakeOpenAI(_responder(GOOD, GOOD)) as server:
        given = Pipeline(demo, _config(server)).ask(
            "Calendar errors from ValueError? (given)", cypher=BROKEN, target_type="exception")
        assert _repair_calls(server) == 0 and given.repair is None
        asked = Pipeline(demo, _config(server, af__repair=True)).ask(
            "Calendar errors from ValueError? (given, --repair)", cypher=BROKEN,
            target_type="exception")
        assert _repair_calls(server) == 1 and asked.outcome == "repaired"
