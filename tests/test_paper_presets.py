"""Presets and the settings they switch (issue 26): ``--preset paper`` runs Algorithm 1 as
printed, ``--preset reference`` as the authors' code runs it; afr's defaults stay. A
preset sits between the defaults and the settings file (flags > env > file > preset >
defaults), every value it sets is an ordinary setting, stored with the run."""

from __future__ import annotations

from pathlib import Path

import pytest
from afr.cli.main import cli
from click.testing import CliRunner
from settings_util import settings_of
from test_grounding import make, q
from test_text_match import make as make_packages
from test_text_match import names as package_names

from afr.ground import GSymbol, GTriplet, ground, scope_schedule
from afr.methods.af.grounding import ground_cypher
from afr.methods.af.paper_ranking import combine
from afr.methods.af.write_cypher import schema_context
from afr.pipeline.ask import Pipeline
from afr.retrieval.candidate import Candidate
from afr.settings import (
    AfSettings,
    Settings,
    SettingsError,
    resolve_settings,
    to_dict,
    with_stored,
)
from afr.store import Store
from afr.store.skb import EdgeType, NodeType, SkbSchema


def resolved(flags: dict | None = None, environ: dict | None = None):  # noqa: ANN201
    return resolve_settings(flags or {}, environ=environ or {}, use_file=False)


def test_no_preset_is_afrs_own_default() -> None:
    r = resolved()
    assert r.settings.af == AfSettings() and r.settings.ask.preset is None
    assert r.settings.af.schedule == "reference" and r.settings.af.ranking == "hybrid"


def test_the_paper_preset_switches_settings_and_names_itself_their_source() -> None:
    r = resolved({"ask.preset": "paper"})
    af = r.settings.af
    assert (af.ranking, af.schedule, af.step6_order, af.topup_excludes) == (
        "paper", "paper", "similarity", "cypher")
    assert (af.use_edge_types, af.fix, af.repair, af.exact_names_first, af.name_patterns) \
        == (False, False, False, False, False)
    assert af.hide_types == ("field_of_study",) and af.mode == "strict"
    assert r.sources["af.schedule"] == "preset paper"
    assert r.sources["ask.k"] == "default"  # what a preset leaves alone


def test_the_reference_preset_differs_where_the_code_departs_from_the_text() -> None:
    af = resolved({"ask.preset": "reference"}).settings.af
    assert (af.schedule, af.step6_order, af.topup_excludes, af.exact_names_first,
            af.cut_first) == ("reference", "level", "taken", True, True)
    assert (af.ranking, af.use_edge_types, af.fix, af.name_patterns) == (
        "paper", False, False, False)


def test_flags_env_and_file_beat_the_preset(tmp_path: Path) -> None:
    r = resolved({"ask.preset": "paper", "af.use_edge_types": True})
    assert r.settings.af.use_edge_types is True
    assert r.sources["af.use_edge_types"] == "flag --edge-types"
    env = resolved(environ={"AFR_PRESET": "reference"})
    assert env.settings.af.cut_first and env.sources["af.cut_first"] == "preset reference"
    config = tmp_path / "afr.toml"
    config.write_text('[ask]\npreset = "paper"\n[af]\nschedule = "reference"\n'
                      'hide_types = ["category", "field of study"]\n')
    r = resolve_settings({}, environ={"AFR_CONFIG": str(config)})
    assert r.settings.af.schedule == "reference"  # the file's, over the preset's
    assert r.settings.af.step6_order == "similarity"  # the preset's
    assert r.settings.af.hide_types == ("category", "field of study")


def test_a_list_setting_of_the_wrong_type_is_a_one_line_error(tmp_path: Path) -> None:
    config = tmp_path / "afr.toml"
    config.write_text('[af]\nhide_types = "category"\n')
    with pytest.raises(SettingsError, match="af.hide_types has the wrong type"):
        resolve_settings({}, environ={"AFR_CONFIG": str(config)})


def test_a_preset_run_stores_its_settings_and_its_name() -> None:
    settings = resolved({"ask.preset": "paper"}).settings
    stored = to_dict(settings)
    assert stored["ask"]["preset"] == "paper" and stored["af"]["schedule"] == "paper"
    again = with_stored(Settings(), stored)  # a resumed run asks as the stored one did
    assert again.af == settings.af and again.ask.preset == "paper"


def test_afr_config_names_the_preset_as_source(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("AFR_PRESET", "paper")
    out = CliRunner().invoke(cli, ["config"]).output
    assert "preset paper" in out and "af.step6_order" in out


def test_effort_none_is_a_level() -> None:
    s = resolved({"llm.steps.cypher.effort": "none"}).settings
    assert s.llm.steps.cypher.effort == "none"


def test_the_papers_schedule() -> None:
    # Algorithm 1 line 9: l = 1, 1.5, 2.34, 4.07, 8.71, 26.2 (< 100), scopes ⌊l⌋
    assert scope_schedule(100, "paper") == [1, 2, 4, 8, 26]
    assert scope_schedule(3, "paper") == [1, 2] and scope_schedule(1, "paper") == [1]
    assert scope_schedule(100) == [1, 2, 3, 5, 8, 12, 18, 27, 41, 62, 93]


def test_grounding_follows_the_chosen_schedule(store: Store, tmp_path: Path) -> None:
    make(store, tmp_path)
    query = q([GSymbol("a", "author", candidates=(3, 1, 5, 0, 2)), GSymbol("p", "paper")],
              [GTriplet("a", "writes", "p")], "p")
    # ranks 1..5 enter at 1, 2, 3, 5, 5 (reference) and at 1, 2, 4, 4, 8 (paper)
    assert ground(store, query, k=100, l_max=10).answers == [
        (13, 1), (11, 2), (15, 3), (10, 5), (12, 5)]
    assert ground(store, query, k=100, l_max=10, rule="paper").answers == [
        (13, 1), (11, 2), (10, 4), (15, 4), (12, 8)]


def test_the_papers_top_up_skips_every_grounded_answer() -> None:
    graph = [Candidate(1, "graph", 1, 0.9)]
    vss = [(2, 0.8), (1, 0.7), (3, 0.6), (4, 0.5)]
    assert [c.node_id for c in combine(graph, vss, 3)] == [1, 2, 3]
    # Algorithm 1 line 12: C(y.type) \ C_cypher — 2 was grounded (not taken): skipped
    assert [c.node_id for c in combine(graph, vss, 3, exclude=frozenset({1, 2}))] == [1, 3, 4]


def test_hidden_types_leave_the_step_2_prompt() -> None:
    schema = SkbSchema(
        "mag", node_types={t: NodeType(t, t) for t in ("paper", "author", "field_of_study")},
        edge_types={"writes": EdgeType("writes", "writes", source_type="author",
                                       target_type="paper"),
                    "has_topic": EdgeType("has_topic", "has_topic", source_type="paper",
                                          target_type="field_of_study")})
    shown = schema_context(schema, "paper", {}, hidden=("field of study",))
    assert [n["name"] for n in shown["node_labels"]] == ["paper", "author"]
    assert [r["label"] for r in shown["relations"]] == ["writes"]
    kept = schema_context(schema, "field_of_study", {}, hidden=("field_of_study",))
    assert "field_of_study" in [n["name"] for n in kept["node_labels"]]  # the target stays


def test_name_patterns_off_searches_the_string(store: Store, tmp_path: Path) -> None:
    make_packages(store, tmp_path)
    cypher = "MATCH (p:package)-[:provides]->(m:module) WHERE p.name CONTAINS 'PYTHON' RETURN m"
    on = ground_cypher(Pipeline(store, settings_of(llm__offline=True, af__l_max=2)).session,
                       cypher).symbols["p"]
    off = ground_cypher(Pipeline(store, settings_of(llm__offline=True, af__l_max=2,
                                                    af__name_patterns=False)).session,
                        cypher).symbols["p"]
    assert package_names(store, on.ids) == ["Pythonista", "mypython", "python-dateutil"]
    assert not off.pattern and len(off.ids) == 2  # l_max look-alikes by similarity


def test_the_papers_node_documents(tmp_path: Path) -> None:
    """Capped: ten names per relation, second hops through a relation the node has one
    of. The paper's: every name, second hops through relation types that every node has at
    most one of (1-1 / n-1)."""
    from skbutil import write_skb

    from afr.load import load_skb_dir
    from afr.store import DuckDBStore
    from afr.vectors.documents import CAPPED, PAPER_CAPS, build_documents

    schema = {"name": "s", "directed": True, "node_types": {"paper": {}, "author": {},
                                                            "venue": {}},
              "edge_types": {"writes": {"source": "author", "target": "paper"},
                             "in": {"source": "paper", "target": "venue"}}}
    nodes = [{"id": i, "type": "paper", "name": f"paper {i:02d}"} for i in range(15)]
    nodes += [{"id": 100, "type": "author", "name": "prolific"},
              {"id": 101, "type": "author", "name": "once"},
              {"id": 200, "type": "venue", "name": "Venue V"}]
    edges = [(100, "writes", i) for i in range(14)] + [(101, "writes", 14)]
    edges += [(i, "in", 200) for i in range(15)]
    store = DuckDBStore(tmp_path / "d.duckdb")
    load_skb_dir(store, write_skb(tmp_path / "s", schema, nodes, edges), progress=False)
    capped = build_documents(store, [100, 101, 14], "doc_rel", caps=CAPPED)
    paper = build_documents(store, [100, 101, 14], "doc_rel", caps=PAPER_CAPS)
    assert "(and 4 more)" in capped[100] and "paper 13" not in capped[100]
    assert "paper 13" in paper[100] and "more)" not in paper[100]
    # "once" wrote one paper: a second hop for the capped rule, not for the paper's (an
    # author may write many); a paper's venue is n-1 for every paper: both
    assert "via paper 14" in capped[101] and "via paper 14" not in paper[101]
    assert "via Venue V" in capped[14] and "via Venue V" in paper[14]
    store.close()


def test_a_paper_preset_ask_counts_overflows_and_tokens(demo) -> None:  # noqa: ANN001
    from fake_openai import FakeOpenAI, Reply, prompt_text

    from afr.settings import with_values

    def reply(request: dict) -> Reply:
        text = prompt_text(request)
        if "relations:" in text:  # a small context: only descriptions without relations fit
            return Reply(status=400, error="This model's maximum context length is 512 "
                         "tokens; you requested 900 tokens")
        return Reply("2, 1")

    cypher = ("MATCH (y:exception)-[:exception_inherits_from_exception]-"
              "(b:exception {name: 'ValueError'}) RETURN y")
    with FakeOpenAI(reply) as server:
        settings = with_values(resolved({"ask.preset": "paper"}).settings, {
            "rerank.method": "listwise", "ask.k": 5, "llm.use_cache": False,
            "llm.base_url": server.base_url, "llm.model": "fake", "llm.api_key": "x"})
        result = Pipeline(demo, settings).ask("Which exceptions inherit from ValueError?",
                                              cypher=cypher, target_type="exception")
    assert result.reranked and "full" in result.rerank_overflows
    assert result.llm_input_tokens > result.llm_output_tokens > 0
    assert result.llm_input_tokens + result.llm_output_tokens == result.llm_tokens_all


def test_hide_type_reaches_the_step_2_prompt(tmp_path: Path) -> None:
    from fake_openai import FakeOpenAI, Reply, prompt_text
    from skbutil import write_skb

    from afr.embed.hashing import HashingEmbedder
    from afr.load import load_skb_dir
    from afr.store import DuckDBStore
    from afr.vectors import embed_store

    schema = {"name": "m", "directed": False, "candidate_types": ["paper"],
              "node_types": {"paper": {}, "author": {}, "field_of_study": {}},
              "edge_types": {"writes": {"source": "author", "target": "paper",
                                        "label": "author_writes_paper"},
                             "topic": {"source": "paper", "target": "field_of_study",
                                       "label": "paper_has_topic_field_of_study"}}}
    nodes = [{"id": 1, "type": "paper", "name": "Graph learning"},
             {"id": 2, "type": "author", "name": "Ada"},
             {"id": 3, "type": "field_of_study", "name": "machine learning"}]
    store = DuckDBStore(tmp_path / "m.duckdb")
    load_skb_dir(store, write_skb(tmp_path / "m", schema, nodes,
                                  [(2, "writes", 1), (1, "topic", 3)]), progress=False)
    embed_store(store, HashingEmbedder(32), progress=False)
    cypher = "MATCH (a:author {name: 'Ada'})-[:author_writes_paper]->(y:paper) RETURN y"
    prompts = {}
    for hidden in ((), ("field of study",)):
        with FakeOpenAI(lambda r: Reply(cypher)) as server:
            settings = settings_of(rerank__method="none", af__hide_types=hidden,
                                   llm__use_cache=False, llm={
                                       "base_url": server.base_url, "model": "fake",
                                       "api_key": "x"})
            result = Pipeline(store, settings).ask("Which papers did Ada write?")
            prompts[hidden] = prompt_text(server.chat_requests()[0])
        assert result.af is not None and result.af.formalized.by == "llm"
    assert "field_of_study" in prompts[()] and "paper_has_topic" in prompts[()]
    shown = prompts[("field of study",)]
    assert "field_of_study" not in shown and "paper_has_topic" not in shown
    assert "author_writes_paper" in shown
    store.close()
