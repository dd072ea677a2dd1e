"""A reply that arrives but cannot be used is a counted LLM failure (issue 23, item 2).

An endpoint that answers every prompt "Sure! Here is my answer: 42" used to leave `afr ask`
at exit 0 with status "ok", and `afr eval` claiming "1-8 final (reranked)" with 0
degraded. Now: no query in a Cypher reply, no known type in step 1's, no candidate named
in a rerank reply, no query in a repair reply are failures of kind "unusable" — a note,
status degraded, exit code 3, and counted per step in eval summaries; a question counts as
reranked only when a rerank reply named a candidate.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

from afr.cli.main import cli
from click.testing import CliRunner
from fake_openai import FakeOpenAI, Reply, prompt_text
from settings_util import settings_of
from toy_stores import CYPHER, QUESTION, question_file

from afr.llm import LLMClient
from afr.pipeline.ask import Pipeline
from afr.settings import LLMSettings
from afr.store import DuckDBStore

pytest_plugins = ("toy_fixtures",)  # the fixtures toy_db and llm_env

SURE = "Sure! Here is my answer: 42"


def _step(request: dict) -> str:
    text = prompt_text(request)
    if "Reply with the type name" in text:
        return "target"
    if "Cypher" in text:
        return "cypher"
    return "rerank"


def test_ask_with_unusable_replies_is_degraded(toy_db: list[str], llm_env) -> None:
    with FakeOpenAI(lambda r: Reply(SURE)) as server:
        llm_env(server.base_url)
        as_json = CliRunner().invoke(cli, [*toy_db, "ask", QUESTION, "--reranker", "listwise",
                                           "--json"])
        text = CliRunner().invoke(cli, [*toy_db, "ask", QUESTION, "--reranker", "listwise",
                                        "--explain"])
    # before: exit 0, status "ok", llm_failure null, no note
    assert as_json.exit_code == 3, as_json.output
    data = json.loads(as_json.stdout)
    assert data["status"] == "degraded" and data["llm_failure"] == "unusable"
    assert [(f["step"], f["kind"]) for f in data["fallbacks"]] == [
        ("steps 1–2", "unusable"), ("step 8", "unusable")]
    assert data["reranked"] is False
    assert data["rerank_replies"] == data["rerank_unusable"] == 1
    assert data["answers"][0]["ext_id"] == "p3"  # the offline formalizer still finds it
    assert text.exit_code == 3, text.output
    assert ("note: LLM reply unusable in steps 1–2 (the Cypher reply holds no query: "
            f"{SURE!r}); using the offline formalizer") in text.stderr
    assert ("note: LLM reply unusable in step 8 (1 of 1 rerank replies named no "
            "candidate); answers keep the retrieval order") in text.stderr
    assert "fell back in step 8 (unusable)" in text.stdout
    assert "8_rerank" not in text.stdout and "8_llm_failed" in text.stdout


def _eval(db: list[str], *args: str):
    return CliRunner().invoke(cli, [*db, "--no-progress", "eval", *args])


def test_eval_counts_unusable_replies_per_step(toy_db: list[str], llm_env,
                                               tmp_path: Path) -> None:
    qfile = question_file(tmp_path / "q.csv", 4)
    with FakeOpenAI(lambda r: Reply(SURE)) as server:
        llm_env(server.base_url)
        run = _eval(toy_db, str(qfile), "--reranker", "listwise", "--json")
    assert run.exit_code == 0, run.output  # a run with degraded questions still finished
    summary = json.loads(run.stdout)
    assert summary["degraded"] == 4  # before: 0
    assert summary["reranked"] == 0 and summary["rerankable"] == 4  # before: 4 of 4
    assert summary["rerank_replies"] == summary["rerank_unusable"] == 4
    assert summary["degraded_steps"] == {"steps 1–2": {"unusable": 4},
                                         "step 8": {"unusable": 4}}
    show = _eval(toy_db, "show", summary["eval_id"])
    assert show.exit_code == 0, show.output
    assert "1-8 final (not reranked: 4 of 4 replies unusable)" in show.stdout
    assert "4 degraded" in show.stdout
    assert ("degraded by step: steps 1–2 on 4 (unusable replies 4) · step 8 on 4 "
            "(unusable replies 4)") in show.stdout
    assert ("the LLM failed: steps 1–2 offline on 4 of 4 questions (unusable replies 4), "
            "reranked 0 of 4 (unusable replies 4)") in show.stdout


def test_eval_calls_reranked_only_the_questions_a_reply_ordered(toy_db: list[str], llm_env,
                                                               tmp_path: Path) -> None:
    def half(request: dict) -> Reply:
        step = _step(request)
        if step == "target":
            return Reply("paper")
        if step == "cypher":
            return Reply(CYPHER)
        copy = int(re.search(r"\(copy (\d+)\)", prompt_text(request)).group(1))
        return Reply("2, 1" if copy % 2 else SURE)

    qfile = question_file(tmp_path / "q.csv", 4)
    with FakeOpenAI(half) as server:
        llm_env(server.base_url)
        run = _eval(toy_db, str(qfile), "--reranker", "listwise")
    assert run.exit_code == 0, run.output
    assert "1-8 final (reranked 2 of 4; 2 of 4 replies unusable)" in run.stdout
    assert "degraded by step: step 8 on 2 (unusable replies 2)" in run.stdout


def _toy(tmp_path: Path) -> DuckDBStore:
    from toy_stores import two_type_skb

    import afr

    store = DuckDBStore(tmp_path / "toy.duckdb")
    afr.load_skb_dir(store, two_type_skb(tmp_path / "skb"), progress=False)
    afr.embed_store(store, afr.make_embedder("hash"), progress=False)
    return store


def _pipeline(store: DuckDBStore, url: str, reranker: str) -> Pipeline:
    config = LLMSettings(base_url=url, model="m", api_key="k", timeout_s=2, max_retries=0)
    return Pipeline(store, settings_of(rerank__method=reranker, ask__k=5),
                    llm=LLMClient(config))


def test_step_1_naming_no_type_is_its_own_failure(tmp_path: Path) -> None:
    """Step 1's reply names no type: step 2 still writes the Cypher (its RETURN gives
    the type), and the failure is step 1's alone."""
    def responder(request: dict) -> Reply:
        return {"target": Reply("a banana"), "cypher": Reply(CYPHER)}.get(
            _step(request), Reply("1, 2, 3"))

    store = _toy(tmp_path)
    try:
        with FakeOpenAI(responder) as server:
            result = _pipeline(store, server.base_url, "listwise").ask(QUESTION)
    finally:
        store.close()
    assert [(f.step, f.kind) for f in result.fallbacks] == [("step 1", "unusable")]
    assert result.status == "degraded" and result.af.formalized.by == "llm"
    assert result.target_type == "paper" and result.answers[0].ext_id == "p3"
    assert result.reranked
    assert "1_target_type" not in result.timings and "1-2_llm_failed" in result.timings


def test_some_unusable_rerank_replies_are_counted_not_a_failure(tmp_path: Path) -> None:
    """Pointwise: one score per candidate; the unreadable ones are counted and noted, the
    readable ones still order the list."""
    def responder(request: dict) -> Reply:
        step = _step(request)
        if step == "target":
            return Reply("paper")
        if step == "cypher":
            return Reply(CYPHER)
        return Reply("0.9" if "Graph convolutional" in prompt_text(request) else "no idea")

    store = _toy(tmp_path)
    try:
        with FakeOpenAI(responder) as server:
            result = _pipeline(store, server.base_url, "pointwise").ask(QUESTION)
    finally:
        store.close()
    assert result.status == "ok" and result.reranked
    assert result.rerank_unusable == result.rerank_replies - 1 > 0
    assert any(f"step 8: {result.rerank_unusable} of {result.rerank_replies} rerank replies "
               "could not be read" in w for w in result.warnings)
