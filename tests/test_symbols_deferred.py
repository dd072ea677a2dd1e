"""Step 4's deferred similarity search: when every constant has exact name matches, the
grounding first runs with those alone; the searches run only when that grounds fewer than
k answers. The answers, their levels and their provenance must be those of the search
run up front, on every question, whichever way it went."""

from __future__ import annotations

import csv
from collections.abc import Iterator

import pytest
from settings_util import settings_of

import afr.methods.af.grounding as grounding
from afr.embed import make_embedder
from afr.load import load_skb_dir
from afr.pipeline.ask import Pipeline
from afr.store import DuckDBStore
from afr.synth import generate
from afr.vectors import embed_store


@pytest.fixture(scope="module")
def synth_store(tmp_path_factory: pytest.TempPathFactory
                ) -> Iterator[tuple[DuckDBStore, list[dict[str, str]]]]:
    out = tmp_path_factory.mktemp("deferred") / "skb"
    generate(out, like="prime", nodes=800, edges=6000, questions=40, seed=11, noise=0.5)
    store = DuckDBStore(out.parent / "afr.duckdb")
    load_skb_dir(store, out, progress=False)
    embed_store(store, make_embedder("hash:64"), progress=False)
    with open(out / "questions.csv", encoding="utf-8", newline="") as fh:
        rows = list(csv.DictReader(fh))
    yield store, rows
    store.close()


def _up_front(monkeypatch: pytest.MonkeyPatch) -> None:
    """Make step 4 search every constant at once, as before deferral existed."""
    original = grounding.retrieve_symbols

    def eager(*args, **kwargs):
        return original(*args, **{**kwargs, "defer": False})

    monkeypatch.setattr(grounding, "retrieve_symbols", eager)


@pytest.mark.parametrize("k", [3, 20])
def test_deferred_search_changes_no_answer(synth_store, monkeypatch: pytest.MonkeyPatch,
                                           k: int) -> None:
    store, rows = synth_store
    config = settings_of(llm__offline=True, ask__log=False, ask__k=k, af__l_max=30)
    pipeline = Pipeline(store, config)
    runs = []
    for row in rows:
        for cypher in {row["cypher"], row["cypher_noisy"]}:
            runs.append((row["query"], cypher, row["target_type"],
                         pipeline.ask(row["query"], cypher=cypher,
                                      target_type=row["target_type"])))
    with monkeypatch.context() as m:
        _up_front(m)
        eager = Pipeline(store, config)
        kinds = {"skipped": 0, "searched": 0}
        for question, cypher, target, deferred in runs:
            reference = eager.ask(question, cypher=cypher, target_type=target)
            assert (deferred.grounding is None) == (reference.grounding is None), cypher
            if reference.grounding is None:
                continue
            assert deferred.grounding.answers == reference.grounding.answers, cypher
            assert deferred.grounding.final_level == reference.grounding.final_level
            assert [(a.node_id, a.provenance) for a in deferred.answers] == \
                [(a.node_id, a.provenance) for a in reference.answers], cypher
            skipped = [s for s in deferred.symbols.values()
                       if any("not searched" in n for n in s.notes)]
            if skipped:
                kinds["skipped"] += 1
                assert len(deferred.grounding.answers) >= k
                for s in skipped:  # the exact names alone, all at level 1
                    assert s.ids == reference.symbols[s.var].ids[:s.exact]
                    assert s.exact == len(s.ids) >= 1
            else:
                kinds["searched"] += 1
                assert {v: s.ids for v, s in deferred.symbols.items()} == \
                    {v: s.ids for v, s in reference.symbols.items()}, cypher
    # both ways were taken, or the comparison proved nothing
    assert kinds["skipped"] >= 3 and kinds["searched"] >= 3, kinds


def test_deferred_candidates_are_recorded_as_run(synth_store) -> None:
    """The run log holds what step 4 used: the exact names alone when the search was
    skipped, with a note saying so."""
    store, rows = synth_store
    pipeline = Pipeline(store, settings_of(llm__offline=True, ask__log=False, ask__k=1, af__l_max=30))
    for row in rows:
        result = pipeline.ask(row["query"], cypher=row["cypher"],
                              target_type=row["target_type"])
        notes = [n for s in result.symbols.values() for n in s.notes if "not searched" in n]
        if notes:
            assert notes[0] == ("similar names not searched: the exact names ground 1 or "
                                "more answers at level 1")
            assert all(s.deferred is None for s in result.symbols.values())
            assert all(score == 1.0 for s in result.symbols.values() if s.constant
                       for score in s.scores)
            return
    pytest.fail("no question had its search skipped")


def test_step_timings_add_up_across_pieces() -> None:
    from afr.retrieval.timing import Timer

    timings: dict[str, float] = {}
    timer = Timer(timings)
    with timer.step("4_symbols"):
        pass
    first = timings["4_symbols"]
    with timer.step("4_symbols"):
        sum(range(20000))
    assert timings["4_symbols"] > first


def test_deferred_path_is_exercised_on_the_paper_ranking(synth_store) -> None:
    """The paper's ranking (no BM25 fusion in step 4) defers the same way."""
    store, rows = synth_store
    pipeline = Pipeline(store, settings_of(llm__offline=True, ask__log=False, ask__k=1, af__l_max=30, af__ranking="paper"))
    skipped = sum(
        any("not searched" in n for s in pipeline.ask(
            r["query"], cypher=r["cypher"], target_type=r["target_type"]).symbols.values()
            for n in s.notes)
        for r in rows)
    assert skipped >= 1


def test_a_target_of_fewer_than_k_nodes_is_grounded_once(demo_path, monkeypatch) -> None:
    """A text condition leaves the target one node: the exact name alone cannot ground
    k answers, so the similarity search runs first and the query is grounded once (not
    with the exact name, then per stage), with the answers and candidates of the search
    run up front."""
    import afr.ground.run as run

    cypher = ("MATCH (e:exception)-[:exception_inherits_from_exception]->"
              "(b:exception {name: 'ValueError'}) WHERE e.text CONTAINS 'month' RETURN e")
    question = "Which exceptions about months inherit from ValueError?"
    statements = []
    original = run._answers

    def counted(*args, **kwargs):
        statements.append(1)
        return original(*args, **kwargs)

    store = DuckDBStore(demo_path)
    try:
        config = settings_of(llm__offline=True, ask__log=False, ask__k=20)
        monkeypatch.setattr(run, "_answers", counted)
        deferred = Pipeline(store, config).ask(question, cypher=cypher)
        assert len(statements) == 1
        assert [a.ext_id for a in deferred.answers[:1]] == [
            "exception:calendar.IllegalMonthError"]
        _up_front(monkeypatch)
        reference = Pipeline(store, config).ask(question, cypher=cypher)
    finally:
        store.close()
    assert deferred.grounding.answers == reference.grounding.answers
    assert {v: s.ids for v, s in deferred.symbols.items()} == \
        {v: s.ids for v, s in reference.symbols.items()}
    assert not any("not searched" in n for s in deferred.symbols.values() for n in s.notes)


def test_typed_candidates_are_of_their_type(synth_store) -> None:
    """The grounding leaves out the type check of a symbol marked ``typed``: that holds
    only because step 4 finds every candidate and allowed node within the symbol's type.
    Checked for every symbol of every question, gold and noisy Cypher."""
    store, rows = synth_store
    session = Pipeline(store, settings_of(llm__offline=True, ask__log=False,
                                          af__l_max=30)).session
    checked = 0
    for row in rows:
        for cypher in {row["cypher"], row["cypher_noisy"]}:
            query = grounding.ground_cypher(session, cypher).query
            for sym in (query.symbols.values() if query is not None else ()):
                ids = list(sym.candidates or ()) + list(sym.allowed or ())
                assert sym.typed == (sym.node_type is not None)
                if not sym.typed or not ids:
                    continue
                types = {t for (t,) in store.query(
                    "SELECT DISTINCT type FROM nodes WHERE id IN (SELECT unnest($ids))",
                    {"ids": ids})}
                assert types == {sym.node_type}, (cypher, sym.var)
                checked += 1
    assert checked >= 40
