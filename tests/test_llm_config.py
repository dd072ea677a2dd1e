"""The LLM's configuration says what is wrong with it (issue 23, item 11).

A bad URL is a usage error (exit 2), not a runtime failure; an LLM set up halfway (a URL
and no model, a model and no URL) is said to be so, not silently offline; an endpoint
that accepts the connection and never answers is down after two timed-out tries, so an
eval stops after --max-llm-failures questions having waited for one question's calls
only (counted in requests, not in seconds).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from afr.cli.main import cli
from click.testing import CliRunner
from fake_openai import FakeOpenAI, Reply
from toy_stores import LLM_VARS, QUESTION, open_store, question_file

pytest_plugins = ("toy_fixtures",)  # toy_db, llm_env


@pytest.fixture
def no_llm(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> pytest.MonkeyPatch:
    """No LLM variable and no settings file: the test sets what it needs."""
    for var in LLM_VARS:
        monkeypatch.delenv(var, raising=False)
    monkeypatch.setenv("AFR_CONFIG", str(tmp_path / "none.toml"))
    (tmp_path / "none.toml").write_text("")
    return monkeypatch


def test_a_url_that_is_not_one_is_a_usage_error(toy_db: list[str], no_llm) -> None:
    no_llm.setenv("AFR_LLM_BASE_URL", "not-a-url")
    result = CliRunner().invoke(cli, [*toy_db, "ask", QUESTION])
    assert result.exit_code == 2, result.output  # was 3: a runtime LLM failure
    assert result.stderr.startswith("afr: error: AFR_LLM_BASE_URL must be an http:// or "
                                    "https:// URL, not 'not-a-url'")
    assert len(result.stderr.strip().splitlines()) == 1 and result.stdout == ""


@pytest.mark.parametrize(("var", "value", "words"), [
    ("AFR_LLM_BASE_URL", "http://127.0.0.1:9/v1",
     "offline: the LLM URL is set (http://127.0.0.1:9/v1) but no model: set AFR_LLM_MODEL"),
    ("AFR_LLM_MODEL", "qwen3",
     "offline: the LLM model is set (qwen3) but no URL: set AFR_LLM_BASE_URL"),
])
def test_an_llm_set_up_halfway_says_what_is_missing(toy_db: list[str], no_llm, var: str,
                                                    value: str, words: str) -> None:
    no_llm.setenv(var, value)
    text = CliRunner().invoke(cli, [*toy_db, "ask", QUESTION])
    as_json = CliRunner().invoke(cli, [*toy_db, "ask", QUESTION, "--json"])
    assert text.exit_code == 0 and as_json.exit_code == 0, text.output
    assert f"afr: note: {words}" in text.stderr  # before: no word of it
    assert "(no LLM configured)" not in text.stderr
    data = json.loads(as_json.stdout)
    # --json carries the notes the text prints (warnings among them)
    assert data["mode"] == "offline" and any(w.startswith(words) for w in data["notes"])


def test_a_complete_or_absent_llm_says_nothing_of_the_kind(toy_db: list[str], no_llm) -> None:
    quiet = CliRunner().invoke(cli, [*toy_db, "ask", QUESTION])
    no_llm.setenv("AFR_LLM_BASE_URL", "http://127.0.0.1:9/v1")
    no_llm.setenv("AFR_LLM_MODEL", "m")
    offline = CliRunner().invoke(cli, [*toy_db, "ask", QUESTION, "--offline"])
    for result in (quiet, offline):
        assert result.exit_code == 0 and "but no" not in result.stderr, result.output
    assert "offline mode (no LLM configured)" in quiet.stderr


def test_eval_halfway_note(toy_db: list[str], no_llm, tmp_path: Path) -> None:
    no_llm.setenv("AFR_LLM_MODEL", "qwen3")
    qfile = question_file(tmp_path / "q.csv", 2)
    result = CliRunner().invoke(cli, [*toy_db, "--no-progress", "eval", str(qfile)])
    assert result.exit_code == 0, result.output
    assert "afr: note: offline mode (the LLM model is set (qwen3) but no URL" in result.stderr


def test_a_hanging_endpoint_costs_one_questions_calls(toy_db: list[str], llm_env,
                                                      tmp_path: Path) -> None:
    """Every call times out: the first question's two tries mark the endpoint down, the
    next questions are lost at once, and the run stops after --max-llm-failures."""
    qfile = question_file(tmp_path / "q.csv", 8)
    with FakeOpenAI(lambda r: Reply("late", delay_s=3)) as server:
        llm_env(server.base_url, timeout_s=0.3, max_retries=4)
        result = CliRunner().invoke(cli, [*toy_db, "--no-progress", "eval", str(qfile),
                                          "--max-llm-failures", "3"])
        sent = len(server.chat_requests())
    assert result.exit_code == 3, result.output
    assert "stopped after 3 questions in a row lost to the LLM" in result.stderr
    assert "timed out 2 times in a row" in result.stderr
    # before: every question spent its own budget, two tries each (6 for 3 questions)
    assert sent == 2
    store = open_store(toy_db, read_only=True)
    try:
        status, = store.query("SELECT status FROM eval_runs")[0]
        done, = store.query("SELECT count(*) FROM eval_results")[0]
    finally:
        store.close()
    assert status == "interrupted" and done == 3
