"""`afr eval` end to end: the demo SKB offline, a scripted LLM server, interrupt and
resume without repeated LLM calls, failures recorded, replay, sweeps, the report commands.

Every metric the tool reports is recomputed here from the rankings it logged, with an
implementation written in this file (not afr.evaluate.metrics).
"""

from __future__ import annotations

import csv
import json
import re
import shutil
import signal
import threading
from collections import Counter
from pathlib import Path

import pytest
from afr.cli.main import cli
from click.testing import CliRunner
from fake_openai import FakeOpenAI, Reply, prompt_text
from settings_util import settings_of

from afr.demo import ensure_demo_store
from afr.evaluate.eval_runs import EvalSettings, create_eval_run, find_eval_run
from afr.evaluate.questions import load_questions
from afr.evaluate.report import summarize
from afr.evaluate.runner import Evaluator
from afr.evaluate.variants import parse_sweeps
from afr.pipeline.ask import Pipeline
from afr.resources import demo_skb_dir
from afr.settings import to_dict, with_stored, with_values
from afr.store import DuckDBStore

FIRST_SIX = 6  # the demo's first questions: "Which exceptions defined in M inherit from B?"


@pytest.fixture(scope="module")
def demo_file(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return ensure_demo_store(tmp_path_factory.mktemp("demo") / "demo.duckdb", progress=False)


@pytest.fixture
def db(demo_file: Path, tmp_path: Path) -> Path:
    """A private copy of the demo store: each test starts with an empty llm_calls cache."""
    path = tmp_path / "afr.duckdb"
    shutil.copy(demo_file, path)
    return path


def scripted(request: dict) -> Reply:
    text = prompt_text(request)
    if "Reply with the type name" in text:
        return Reply("Exception")
    if "Cypher" in text:
        m = re.search(r"Which exceptions defined in the (\S+) module inherit from (\w+)\?", text)
        if not m:
            return Reply("MATCH (y:exception) RETURN y")
        return Reply(f"MATCH (y:exception)-[:module_defines_exception]-(m:module {{name: "
                     f"'{m.group(1)}'}}), (y)-[:exception_inherits_from_exception]-"
                     f"(b:exception {{name: '{m.group(2)}'}}) RETURN y.name")
    if "Rank all" in text:
        return Reply("2, 1")  # swap the first two, keep the rest
    return Reply("?")


def llm_args(server: FakeOpenAI) -> list[str]:
    return ["--llm-url", server.base_url, "--llm-model", "fake"]


def invoke(db: Path, *args: str, code: int = 0) -> str:
    """stdout and stderr of `afr eval ARGS`, interleaved."""
    return _invoke(db, args, code).output


def invoke_json(db: Path, *args: str, code: int = 0) -> dict:
    """`afr eval ARGS --json`: the summary on stdout (messages go to stderr)."""
    result = _invoke(db, (*args, "--json"), code)
    return json.loads(result.stdout)


def _invoke(db: Path, args: tuple[str, ...], code: int):
    result = CliRunner().invoke(cli, ["--db", str(db), "--no-progress", "eval", *args],
                                catch_exceptions=False)
    assert result.exit_code == code, result.output
    return result


def eval_id_of(output: str) -> str:
    return re.search(r"eval ([0-9a-f]{12})", output).group(1)  # type: ignore[union-attr]


# -- an independent recomputation of the metrics from the logged rankings ----------------

def recompute(db: Path, eval_id: str) -> dict[str, float]:
    store = DuckDBStore(db, read_only=True)
    try:
        rows = store.query("SELECT question_id, ranked, gold FROM eval_results "
                           "WHERE eval_id = $e", {"e": eval_id})
        candidates = {r[0] for r in store.query(
            "SELECT n.ext_id FROM nodes n JOIN node_types t ON t.type = n.type "
            "WHERE t.is_candidate")}
    finally:
        store.close()
    totals = Counter()
    for _qid, ranked_ids, gold_ids in rows:  # JSON columns come back decoded
        ranked: list[str] = []
        for item in ranked_ids:
            if item not in ranked:
                ranked.append(item)
        gold = set(gold_ids) & candidates
        positions = [i for i, r in enumerate(ranked, 1) if r in gold]
        for k in (1, 5, 10, 20):
            totals[f"hit@{k}"] += bool(positions and positions[0] <= k)
        totals["recall@20"] += len([p for p in positions if p <= 20]) / len(gold) if gold else 0
        totals["mrr"] += 1 / positions[0] if positions else 0
    return {m: v / len(rows) for m, v in totals.items()} | {"n": len(rows)}


def assert_same_metrics(reported: dict[str, float], recomputed: dict[str, float]) -> None:
    for m in ("hit@1", "hit@5", "hit@10", "hit@20", "recall@20", "mrr"):
        assert reported[m] == pytest.approx(recomputed[m]), m


# -- offline on the demo -----------------------------------------------------------------

def test_eval_demo_offline(db: Path) -> None:
    summary = invoke_json(db, "demo", "--offline", "--concurrency", "3")
    assert summary["status"] == "finished" and summary["done"] == 22
    assert summary["failed"] == 0 and summary["mode"].startswith("offline")
    final = summary["metrics"]["1-8"]
    again = recompute(db, summary["eval_id"])
    assert again["n"] == 22
    assert_same_metrics(final, again)
    # the demo's questions name their entities: the graph strand finds nearly all of them,
    # plain vector search alone much fewer (the paper's ablation, in small)
    assert final["hit@1"] > 0.9 and summary["metrics"]["1+7"]["hit@1"] < 0.5
    assert summary["metrics"]["1-7"] == final  # offline: no step 8
    # steps 6–7 are one timed step with hybrid ranking (the default), two in the paper's
    for step in ("3_parse", "4_symbols", "5_grounding", "6_7_hybrid"):
        lat = summary["latency"][step]
        assert 0 <= lat["median"] <= lat["max"] and lat["mean"] <= lat["max"]
    store = DuckDBStore(db, read_only=True)
    try:
        n_variants = store.query("SELECT count(*) FROM eval_variants WHERE eval_id = $e",
                                 {"e": summary["eval_id"]})[0][0]
        logged = store.query("SELECT count(DISTINCT question_id) FROM runs WHERE eval_id = $e",
                             {"e": summary["eval_id"]})[0][0]
    finally:
        store.close()
    assert n_variants == 22 * 10 and logged == 22  # 5 ablations + 5 methods (issue 11)


# -- with an LLM -------------------------------------------------------------------------

def test_eval_with_llm_end_to_end(db: Path) -> None:
    with FakeOpenAI(scripted) as server:
        summary = invoke_json(db, "demo", "--limit", str(FIRST_SIX), "--reranker",
                              "listwise", "--concurrency", "2", *llm_args(server))
        sent = len(server.chat_requests())
    assert summary["mode"].startswith("llm (fake, listwise")
    assert summary["failed"] == 0 and summary["degraded"] == 0
    # target type, Cypher and one listwise prompt per question
    assert sent == 3 * FIRST_SIX
    assert summary["llm"]["prompts_per_question"] == 3 and summary["llm"]["new_calls"] == sent
    assert summary["llm"]["tokens_per_question"] > 0
    assert_same_metrics(summary["metrics"]["1-8"], recompute(db, summary["eval_id"]))
    # the reranker swapped the first two answers of the steps 1–7 list
    store = DuckDBStore(db, read_only=True)
    try:
        rows = store.query("SELECT question_id, variant, ranked FROM eval_variants "
                           "WHERE eval_id = $e AND variant IN ('1-7', '1-8')",
                           {"e": summary["eval_id"]})
    finally:
        store.close()
    lists: dict[str, dict[str, list[str]]] = {}
    for qid, variant, ranked in rows:
        lists.setdefault(qid, {})[variant] = ranked
    assert len(lists) == FIRST_SIX
    for per in lists.values():
        before, after = per["1-7"], per["1-8"]
        assert after[:2] == before[1::-1] and after[2:] == before[2:]


def test_interrupt_and_resume_repeat_no_llm_call(db: Path, tmp_path: Path) -> None:
    reference = tmp_path / "reference.duckdb"
    shutil.copy(db, reference)
    args = ["demo", "--limit", str(FIRST_SIX), "--reranker", "listwise"]
    with FakeOpenAI(scripted) as server:
        full = invoke_json(reference, *args, *llm_args(server))
        full_requests = len(server.chat_requests())

    seen: dict = {"n": 0, "in_flight": None}
    lock = threading.Lock()
    texts = {q.query: q.id for q in load_questions(demo_skb_dir())[:FIRST_SIX]}

    def interrupting(request: dict) -> Reply:
        with lock:
            seen["n"] += 1
            if seen["n"] == 7:  # a Ctrl-C in the middle of the third question or so
                # the question this request belongs to is in flight: it must finish
                prompt = prompt_text(request)
                seen["in_flight"] = next(i for t, i in texts.items() if t in prompt)
                # a real SIGINT to the main thread, as a terminal's Ctrl-C: it wakes the
                # thread from its wait at once (_thread.interrupt_main only sets a flag,
                # seen up to a queue timeout later, when fast questions may all be done)
                signal.pthread_kill(threading.main_thread().ident, signal.SIGINT)
                # this reply waits until the main thread has taken the Ctrl-C: an event,
                # so no other question can start first however the threads are scheduled
                assert interrupted.wait(timeout=120), "the Ctrl-C was never handled"
        return scripted(request)

    interrupted = threading.Event()

    def ctrl_c(signum: int, frame: object) -> None:
        interrupted.set()
        raise KeyboardInterrupt

    # Python raises KeyboardInterrupt only when SIGINT was not ignored at its start; a
    # test run started in the background (`cmd &` in a script) inherits it ignored.
    inherited = signal.signal(signal.SIGINT, ctrl_c)
    try:
        with FakeOpenAI(interrupting) as server:
            out = invoke(db, *args, "--concurrency", "2", *llm_args(server), code=130)
            eval_id = eval_id_of(out)
            assert f"afr eval --resume {eval_id}" in out
            store = DuckDBStore(db, read_only=True)
            try:
                status, = store.query("SELECT status FROM eval_runs WHERE eval_id = $e",
                                      {"e": eval_id})[0]
                recorded = dict(store.query("SELECT question_id, status FROM eval_results "
                                            "WHERE eval_id = $e", {"e": eval_id}))
            finally:
                store.close()
            # Ctrl-C let the question in flight finish (answered, not failed), and no new
            # question started: those still to come are not recorded
            assert status == "interrupted" and 0 < len(recorded) < FIRST_SIX, recorded
            assert recorded.get(seen["in_flight"]) == "ok", (seen, recorded)
            resumed = invoke_json(db, "--resume", eval_id[:6])
            requests = server.chat_requests()
    finally:
        signal.signal(signal.SIGINT, inherited)
    assert resumed["status"] == "finished" and resumed["done"] == FIRST_SIX
    # no prompt was sent twice, and all together cost exactly what one full run costs
    prompts = [json.dumps(r["messages"], sort_keys=True) for r in requests]
    assert len(prompts) == len(set(prompts)) == full_requests
    assert resumed["metrics"] == full["metrics"]
    assert_same_metrics(resumed["metrics"]["1-8"], recompute(db, eval_id))


def test_failures_are_recorded_and_retried_on_resume(db: Path, tmp_path: Path) -> None:
    qfile = tmp_path / "questions.csv"
    demo = load_questions(demo_skb_dir())[:3]
    with open(qfile, "w", newline="", encoding="utf-8") as fh:
        w = csv.writer(fh)
        w.writerow(["id", "query", "answer_ids"])
        for q in demo:
            w.writerow([q.id, q.query, json.dumps(list(q.answer_ids))])
        w.writerow(["empty", "   ", json.dumps([demo[0].answer_ids[0]])])
        w.writerow(["ghost", demo[1].query + " Again.", json.dumps(["no-such-node"])])
    store = DuckDBStore(db)
    notes: list[str] = []
    try:
        with FakeOpenAI(lambda r: Reply(status=503, error="overloaded")) as down:
            config = settings_of(rerank__method="listwise", llm={"base_url": down.base_url, "model": "fake",
                                    "api_key": "x", "max_retries": 0})
            pipeline = Pipeline(store, config)
            settings = EvalSettings(source=str(qfile), concurrency=2,
                                    ask=to_dict(with_values(config, {"llm.offline": False})))
            questions = settings.questions()
            run = create_eval_run(store, settings, name="flaky", total=len(questions))
            report = Evaluator(store, pipeline, run, questions, note=notes.append).execute()
        assert report.done == 5 and not report.interrupted
        assert any("no-such-node" in n for n in notes)
        summary = summarize(store, find_eval_run(store, "flaky"))
        errs = store.query("SELECT error FROM eval_results")
        assert summary["failed"] == 1 and summary["degraded"] == 4, errs
        rows = {r[0]: r[1:] for r in store.query(
            "SELECT question_id, status, error FROM eval_results WHERE eval_id = $e",
            {"e": run.eval_id})}
        assert rows["empty"][0] == "failed" and "empty" in rows["empty"][1]
        assert rows["0"][0] == "degraded" and "LLM failed" in rows["0"][1]
        # the LLM is back: resuming asks the degraded and failed questions again
        with FakeOpenAI(scripted) as up:
            run = find_eval_run(store, run.eval_id)
            run.settings.ask["llm"].update({"base_url": up.base_url, "model": "fake"})
            # the key is never stored: it comes from the settings a resume starts with
            pipeline = Pipeline(store, with_stored(settings_of(llm={"api_key": "x"}),
                                                   run.settings.ask))
            Evaluator(store, pipeline, run, questions, note=notes.append).execute()
            assert len(up.chat_requests()) == 3 * 4  # four questions reached the LLM again
        summary = summarize(store, find_eval_run(store, run.eval_id))
        assert summary["degraded"] == 0 and summary["failed"] == 1  # an empty question stays
        assert summary["status"] == "finished"
        # "ghost" has no gold inside the candidate set: it scores 0, the others are found
        assert summary["metrics"]["1-8"]["hit@20"] == pytest.approx(3 / 5)
    finally:
        store.close()


# -- replay, sweeps, the report commands -------------------------------------------------

def test_replay_column_runs_without_llm(db: Path, tmp_path: Path) -> None:
    demo = load_questions(demo_skb_dir())[:4]
    qfile = tmp_path / "bench.csv"
    with open(qfile, "w", newline="", encoding="utf-8") as fh:
        w = csv.writer(fh)
        w.writerow(["id", "query", "answer_ids", "target_type", "cypher", "cypher_noisy"])
        for q in demo:
            m = re.search(r"defined in the (\S+) module inherit from (\w+)", q.query)
            good = (f"MATCH (y:exception)-[:module_defines_exception]-(m:module {{name: "
                    f"'{m.group(1)}'}}), (y)-[:exception_inherits_from_exception]-"
                    f"(b:exception {{name: '{m.group(2)}'}}) RETURN y")
            w.writerow([q.id, q.query, json.dumps(list(q.answer_ids)), "exception", good,
                        "MATCH (y:exception) RETURN y"])
    with FakeOpenAI(scripted) as server:
        clean = invoke_json(db, str(qfile), "--replay", "cypher", "--reranker", "none",
                            *llm_args(server))
        noisy = invoke_json(db, str(qfile), "--replay", "cypher_noisy", "--reranker",
                            "none", *llm_args(server))
        assert server.chat_requests() == []
    assert clean["mode"].startswith("replay of column 'cypher'")
    assert clean["metrics"]["1-8"]["hit@1"] == 1.0
    assert noisy["metrics"]["1-8"]["hit@1"] < clean["metrics"]["1-8"]["hit@1"]
    store = DuckDBStore(db, read_only=True)
    try:
        cyphers = [r[0] for r in store.query(
            "SELECT cypher FROM runs WHERE eval_id = $e", {"e": noisy["eval_id"]})]
    finally:
        store.close()
    assert cyphers == ["MATCH (y:exception) RETURN y"] * 4
    missing = CliRunner().invoke(cli, ["--db", str(db), "eval", str(qfile), "--replay",
                                       "nope"])
    assert missing.exit_code == 1
    assert missing.output.strip().startswith("afr: error:") and "nope" in missing.output


def test_sweeps_reproduce_the_matching_variants(db: Path) -> None:
    with FakeOpenAI(scripted) as server:
        # the alpha sweep recombines the paper's strands: compare it with the paper's ranking
        summary = invoke_json(db, "demo", "--limit", "4", "--reranker", "listwise",
                              "--ranking", "paper",
                              "--alpha", "0.5", "--sweep", "alpha=0,0.5,1", "--sweep",
                              "l_max=100,2", "--sweep", "reranker=none,listwise,pointwise",
                              *llm_args(server))
    store = DuckDBStore(db, read_only=True)
    try:
        rows = store.query("SELECT question_id, variant, ranked FROM eval_variants "
                           "WHERE eval_id = $e", {"e": summary["eval_id"]})
    finally:
        store.close()
    lists: dict[str, dict[str, list[str]]] = {}
    for qid, variant, ranked in rows:
        lists.setdefault(qid, {})[variant] = ranked
    assert len(lists) == 4
    for per in lists.values():
        assert per["alpha=0.5"] == per["1-7"]  # recombining at the run's alpha: same list
        assert per["alpha=0"] == per["1+7"]  # no graph answers: plain vector search
        assert per["l_max=100"] == per["1-7"]  # re-grounding at the run's l_max: same list
        assert per["reranker=none"] == per["1-7"]
        assert per["reranker=listwise"] == per["1-8"]
        assert sorted(per["reranker=pointwise"]) == sorted(per["1-7"])
        assert len(per["alpha=1"]) == 20


def test_methods_side_by_side(db: Path) -> None:
    """--methods asks every question again with each method: its list is a variant, each
    ask is a logged run of the eval, its time is in the latency table, and compare can
    put one method against another question by question."""
    summary = invoke_json(db, "demo", "--offline", "--limit", "5", "--methods", "vss,bm25,af")
    eval_id = summary["eval_id"]
    store = DuckDBStore(db, read_only=True)
    try:
        rows = store.query("SELECT question_id, variant, ranked FROM eval_variants "
                           "WHERE eval_id = $e", {"e": eval_id})
        runs = store.query("SELECT question_id, count(*) FROM runs WHERE eval_id = $e "
                           "GROUP BY question_id", {"e": eval_id})
    finally:
        store.close()
    lists: dict[str, dict[str, list[str]]] = {}
    for qid, variant, ranked in rows:
        lists.setdefault(qid, {})[variant] = ranked
    assert len(lists) == 5
    for per in lists.values():
        assert per["method=af"] == per["1-8"]  # the run's own method is not asked twice
        assert len(per["method=vss"]) == len(per["method=bm25"]) == 20
        assert per["method=vss"] != per["method=bm25"] or per["vss"] == per["bm25"]
    # the main ask, then vss and bm25: three logged runs per question
    assert sorted(n for _, n in runs) == [3] * 5
    assert {"method=vss", "method=bm25"} <= set(summary["latency"])
    for name in ("method=vss", "method=bm25", "method=af"):
        assert name in summary["metrics"]
    compared = invoke_json(db, "compare", f"{eval_id}@method=bm25", eval_id)
    assert compared["a_variant"] == "method=bm25" and compared["b_variant"] == "1-8"
    bm25_hits = sum(per["method=bm25"][:1] != [] for per in lists.values())
    assert compared["shared_questions"] == 5 and bm25_hits == 5
    text = _invoke(db, ("compare", f"{eval_id}@method=vss", f"{eval_id}@method=bm25"), 0)
    assert "list method=vss" in text.stdout and "method=vss vs method=bm25" in text.stdout
    bad = CliRunner().invoke(cli, ["--db", str(db), "eval", "compare", f"{eval_id}@nope",
                                   eval_id])
    assert bad.exit_code == 1 and "has no list 'nope'" in bad.output
    bad = CliRunner().invoke(cli, ["--db", str(db), "eval", "demo", "--methods", "vss,magic"])
    # the option given is named (issue 23: it said "--sweep method")
    assert bad.exit_code == 1 and bad.output.startswith(
        "afr: error: --methods: 'magic' is not a method; use af / vss")


def test_parse_sweeps_errors() -> None:
    assert parse_sweeps(["alpha=0.5,1", "l-max=3", "alpha=1"]) == {"alpha": [0.5, 1.0],
                                                                    "l_max": [3]}
    from afr.errors import AfrError

    for bad in ("alpha=2", "l_max=0", "reranker=magic", "method=magic", "beta=1", "alpha="):
        with pytest.raises(AfrError):
            parse_sweeps([bad])


def test_list_show_export_compare(db: Path, tmp_path: Path) -> None:
    a = eval_id_of(invoke(db, "demo", "--offline", "--limit", "8", "--name", "base"))
    b = eval_id_of(invoke(db, "demo", "--offline", "--limit", "8", "--l-max", "1"))
    listed = invoke(db, "list")
    assert a in listed and b in listed and "base" in listed and "8/8" in listed
    shown = invoke_json(db, "show", "base")
    assert shown["eval_id"] == a and shown["done"] == 8
    assert "1-8" in invoke(db, "show", a)
    invoke(db, "export", a, "--csv", str(tmp_path / "a.csv"), "--json",
           str(tmp_path / "a.json"))
    with open(tmp_path / "a.csv", encoding="utf-8") as fh:
        rows = list(csv.DictReader(fh))
    assert len(rows) == 8 and set(rows[0]) >= {"question_id", "query", "gold", "ranked",
                                               "hit@1", "mrr", "error"}
    exported = json.loads((tmp_path / "a.json").read_text())
    assert len(exported["questions"]) == 8
    assert set(exported["questions"][0]["variants"]) == {
        "1+7", "1-5", "1-6", "1-7", "1-8", "vss", "bm25", "hybrid", "af:paper", "af:hybrid"}
    mean_mrr = sum(float(r["mrr"]) for r in rows) / 8
    assert mean_mrr == pytest.approx(exported["summary"]["metrics"]["1-8"]["mrr"])
    data = invoke_json(db, "compare", a, b)
    wins = data["per_question"]["mrr"]
    ra = {r["question_id"]: float(r["mrr"]) for r in rows}
    invoke(db, "export", b, "--csv", str(tmp_path / "b.csv"))
    with open(tmp_path / "b.csv", encoding="utf-8") as fh:
        rb = {r["question_id"]: float(r["mrr"]) for r in csv.DictReader(fh)}
    assert sorted(wins["b_better"]) == sorted(q for q in ra if rb[q] > ra[q])
    assert sorted(wins["a_better"]) == sorted(q for q in ra if rb[q] < ra[q])
    text = invoke(db, "compare", a, b)
    assert "B better on" in text and "hit@1" in text
    unknown = CliRunner().invoke(cli, ["--db", str(db), "eval", "show", "feedface"])
    assert unknown.exit_code == 1 and "no eval 'feedface'" in unknown.output
