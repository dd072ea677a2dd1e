"""A dead LLM fails fast (issue 10, item 3).

A closed port (a socket bound, then closed) stands for an endpoint that refuses the
connection; the scripted server for one that times out or answers 401/404. Nothing here
reads a wall clock: how long a question may wait is checked by counting what the client
is charged (``CountedClock``: each call's timeout and each backoff sleep) and how many
requests and retries it made; speed itself is measured in bench/.
"""

from __future__ import annotations

import csv
import json
import shutil
import socket
from collections.abc import Iterator
from pathlib import Path

import pytest
from afr.cli.main import cli
from click.testing import CliRunner
from fake_openai import FakeOpenAI, Reply, prompt_text
from settings_util import settings_of
from skbutil import two_answer_type_store

from afr.demo import ensure_demo_store
from afr.errors import LLMError
from afr.evaluate.questions import load_questions
from afr.llm import LLMClient, LLMUnavailableError, WaitBudget
from afr.pipeline.ask import Pipeline
from afr.resources import demo_skb_dir
from afr.settings import LLMSettings
from afr.store import DuckDBStore

MESSAGES = [{"role": "user", "content": "say hello"}]
QUESTION = "Which paper by Thomas Kipf is about graph learning?"
DEMO_QUESTION = "Which exceptions in the json module inherit from ValueError?"
LLM_VARS = ("AFR_LLM_BASE_URL", "AFR_LLM_MODEL", "AFR_LLM_API_KEY", "AFR_LLM_TIMEOUT",
            "OPENAI_API_KEY")


def closed_port_url() -> str:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    return f"http://127.0.0.1:{port}/v1"


class CountedClock:
    """A clock that moves only by what a client is charged: every call its whole timeout
    (a failing call waits at most that long), every backoff its sleep."""

    def __init__(self) -> None:
        self.now = 0.0
        self.timeouts: list[float] = []
        self.slept: list[float] = []

    def __call__(self) -> float:
        return self.now

    def sleep(self, seconds: float) -> None:
        self.slept.append(seconds)
        self.now += seconds

    def charged(self) -> float:
        return sum(self.timeouts) + sum(self.slept)

    def client(self, config: LLMSettings) -> LLMClient:
        llm = LLMClient(config, sleep=self.sleep, clock=self)
        call_once = llm._call_once

        def counted(request: dict, timeout: float | None = None):
            given = config.timeout_s if timeout is None else timeout
            self.timeouts.append(given)
            try:
                return call_once(request, timeout)
            finally:
                self.now += given

        llm._call_once = counted  # type: ignore[method-assign]
        return llm


def client(url: str, *, max_retries: int = 4, timeout_s: float = 2.0,
           slept: list[float] | None = None) -> LLMClient:
    config = LLMSettings(base_url=url, model="m", api_key="k", timeout_s=timeout_s,
                       max_retries=max_retries)
    if slept is None:
        return LLMClient(config)
    return LLMClient(config, sleep=slept.append)


@pytest.fixture(scope="module")
def toy_path(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return two_answer_type_store(tmp_path_factory.mktemp("down"))


@pytest.fixture
def toy(toy_path: Path) -> Iterator[DuckDBStore]:
    store = DuckDBStore(toy_path)
    yield store
    store.close()


@pytest.fixture(scope="module")
def demo_file(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return ensure_demo_store(tmp_path_factory.mktemp("demo") / "demo.duckdb", progress=False)


@pytest.fixture
def demo_db(demo_file: Path, tmp_path: Path) -> Path:
    path = tmp_path / "afr.duckdb"
    shutil.copy(demo_file, path)
    return path


@pytest.fixture
def llm_env(monkeypatch: pytest.MonkeyPatch, tmp_path: Path):
    """Point afr at an LLM through a settings file (timeout_s = 2), nothing else."""
    for var in LLM_VARS:
        monkeypatch.delenv(var, raising=False)

    def use(url: str, *, timeout_s: float = 2, max_retries: int = 4) -> None:
        path = tmp_path / "afr.toml"
        path.write_text(f'[llm]\nbase_url = "{url}"\nmodel = "m"\napi_key = "k"\n'
                        f"timeout_s = {timeout_s}\nmax_retries = {max_retries}\n")
        monkeypatch.setenv("AFR_CONFIG", str(path))
    return use


# -- the client ----------------------------------------------------------------------------

def test_refused_gets_one_quick_retry_then_the_client_is_down() -> None:
    slept: list[float] = []
    llm = client(closed_port_url(), slept=slept)
    with pytest.raises(LLMUnavailableError, match="cannot reach") as info:
        llm.complete(MESSAGES)
    assert info.value.kind == "unreachable" and not info.value.skipped
    assert len(slept) == 1 and slept[0] <= 0.25  # one quick retry, not four backoffs
    assert llm.down is not None
    with pytest.raises(LLMUnavailableError, match="marked down") as info:
        llm.complete([{"role": "user", "content": "another prompt"}])
    assert info.value.skipped  # no request was sent
    assert len(slept) == 1  # not asked again: no retry, no sleep


def test_dns_failure_counts_as_unreachable(monkeypatch: pytest.MonkeyPatch) -> None:
    def no_such_host(*args, **kwargs):
        raise socket.gaierror(-2, "Name or service not known")

    monkeypatch.setattr(socket, "getaddrinfo", no_such_host)
    slept: list[float] = []
    llm = client("http://llm.invalid/v1", slept=slept)
    with pytest.raises(LLMUnavailableError, match="Name or service not known"):
        llm.complete(MESSAGES)
    assert len(slept) <= 1 and llm.down is not None


def test_401_marks_the_client_down_and_404_the_model() -> None:
    with FakeOpenAI(lambda r: Reply(status=401, error="bad key")) as server:
        llm = client(server.base_url, slept=[])
        with pytest.raises(LLMUnavailableError, match="not authorised"):
            llm.complete(MESSAGES)
        with pytest.raises(LLMUnavailableError, match="marked down"):
            llm.complete(MESSAGES, model="other")
        assert len(server.chat_requests()) == 1
    with FakeOpenAI(lambda r: Reply(status=404, error="no such model")
                    if r["model"] == "m" else Reply("fine")) as server:
        llm = client(server.base_url, slept=[])
        for _ in range(2):
            with pytest.raises(LLMUnavailableError, match="not found") as info:
                llm.complete(MESSAGES)
            assert info.value.kind == "access"
        assert llm.complete(MESSAGES, model="other").text == "fine"  # other models still
        assert len(server.chat_requests()) == 2


def test_the_budget_bounds_a_questions_wait() -> None:
    """Timeouts and backoff of one question stay within 2 × timeout_s + 1 s, however many
    calls and retries it has."""
    clock = CountedClock()
    with FakeOpenAI(lambda r: Reply("late", delay_s=3)) as server:
        llm = clock.client(LLMSettings(base_url=server.base_url, model="m", api_key="k",
                                       timeout_s=0.3, max_retries=10))
        budget = WaitBudget.for_question(0.3)
        for _ in range(3):  # three steps of one question
            with pytest.raises(LLMError):
                llm.complete(MESSAGES, budget=budget)
        sent = len(server.chat_requests())
    assert budget.seconds == pytest.approx(1.6)
    # every request and every backoff was within the budget
    assert clock.charged() <= budget.seconds + 1e-9, (clock.timeouts, clock.slept)
    assert sent == len(clock.timeouts) >= 2 and min(clock.timeouts) > 0
    # Two tries in a row without a reply: the endpoint is down, for the next questions
    # too (issue 23: before, every question waited its whole budget again).
    assert llm.down is not None and llm.down.kind == "timeout"
    assert "timed out 2 times in a row" in str(llm.down)


def test_one_slow_reply_is_not_down() -> None:
    """A reply between two timeouts starts the count again: slow once is not down."""
    late = {"n": 0}

    def responder(request: dict) -> Reply:
        late["n"] += 1
        return Reply("late", delay_s=1.5) if late["n"] % 2 else Reply("in time")

    with FakeOpenAI(responder) as server:
        llm = client(server.base_url, max_retries=1, timeout_s=0.3, slept=[])
        for _ in range(3):  # each call: a timeout, then a reply
            assert llm.complete(MESSAGES, seed=late["n"]).text == "in time"
    assert llm.down is None and late["n"] == 6


# -- afr ask -------------------------------------------------------------------------------

def test_ask_against_a_closed_port_is_fast_and_says_so(toy: DuckDBStore) -> None:
    config = LLMSettings(base_url=closed_port_url(), model="m", api_key="k", timeout_s=2)
    slept: list[float] = []
    pipe = Pipeline(toy, settings_of(rerank__method="listwise", ask__k=5),
                    llm=LLMClient(config, sleep=slept.append))
    result = pipe.ask(QUESTION)
    # fast: one quick retry in the whole ask (it was 8 s of backoff per LLM step)
    assert len(slept) == 1 and slept[0] <= 0.25, slept
    assert result.status == "degraded" and result.llm_failure == "unreachable"
    assert result.answers and result.answers[0].ext_id == "p3"
    # the timings name what ran: no rerank, no LLM target type
    assert "8_rerank" not in result.timings and "8_llm_failed" in result.timings
    assert "1_target_type" not in result.timings and "1-2_llm_failed" in result.timings
    assert any("skipped in step 8" in w and "marked down" in w for w in result.warnings)


def test_ask_timeouts_bound_the_whole_llm_wait(toy: DuckDBStore) -> None:
    timeout = 0.5
    clock = CountedClock()
    with FakeOpenAI(lambda r: Reply("late", delay_s=4)) as server:
        config = LLMSettings(base_url=server.base_url, model="m", api_key="k",
                             timeout_s=timeout, max_retries=2)
        pipe = Pipeline(toy, settings_of(rerank__method="listwise", ask__k=5),
                        llm=clock.client(config))
        result = pipe.ask(QUESTION)
        sent = len(server.chat_requests())
    # steps 1-2 and 8 together: every call's timeout and every backoff within the
    # question's 2 × timeout_s + 1 s
    assert clock.charged() <= 2 * timeout + 1 + 1e-9, (clock.timeouts, clock.slept)
    assert sent == len(clock.timeouts) >= 2
    assert {"1-2_llm_failed", "8_llm_failed"} <= set(result.timings)
    assert result.llm_failure == "timeout" and result.answers


def test_cli_ask_exit_code_when_the_llm_is_down(toy_path: Path, llm_env) -> None:
    llm_env(closed_port_url(), timeout_s=2)
    result = CliRunner().invoke(cli, ["--db", str(toy_path), "ask", QUESTION, "--no-cache"])
    assert result.exit_code == 3, result.output
    assert "p3" in result.stdout  # the answers are still printed
    assert "step 8: answers keep the retrieval order" in result.stderr
    assert "exit code 3" in result.stderr


@pytest.mark.parametrize(("status", "words"), [(401, "not authorised"), (404, "not found")])
def test_cli_ask_exit_code_on_401_and_404(toy_path: Path, llm_env, status: int,
                                          words: str) -> None:
    with FakeOpenAI(lambda r: Reply(status=status, error="no")) as server:
        llm_env(server.base_url)
        result = CliRunner().invoke(cli, ["--db", str(toy_path), "ask", QUESTION,
                                          "--no-cache", "--json"])
        calls = len(server.chat_requests())
    assert result.exit_code == 4, result.output
    data = json.loads(result.stdout)
    assert data["answers"] and data["llm_failure"] == "access"
    assert words in result.stderr
    assert calls == 1  # steps 1-2 failed: step 8 did not ask again


def test_ask_help_documents_the_exit_codes() -> None:
    text = CliRunner().invoke(cli, ["ask", "--help"]).output
    assert "Exit codes:" in text and "3  answers printed" in text and "401/403/404" in text
    text = CliRunner().invoke(cli, ["eval", "run", "--help"]).output
    assert "--max-llm-failures" in text and "Exit codes:" in text
    readme = (Path(__file__).parents[1] / "README.md").read_text(encoding="utf-8")
    assert "--max-llm-failures" in readme and "| 3 |" in readme and "| 4 |" in readme


# -- afr eval ------------------------------------------------------------------------------

def _question_file(path: Path, n: int) -> Path:
    questions = load_questions(demo_skb_dir())[:n]
    with open(path, "w", newline="", encoding="utf-8") as fh:
        writer = csv.writer(fh)
        writer.writerow(["id", "query", "answer_ids"])
        for q in questions:
            writer.writerow([q.id, q.query, json.dumps(list(q.answer_ids))])
    return path


def _eval(db: Path, *args: str):
    return CliRunner().invoke(cli, ["--db", str(db), "--no-progress", "eval", *args])


def _run_row(db: Path) -> tuple[str, int]:
    store = DuckDBStore(db, read_only=True)
    try:
        status = store.query("SELECT status FROM eval_runs")[0][0]
        done = store.query("SELECT count(*) FROM eval_results")[0][0]
    finally:
        store.close()
    return status, done


def test_eval_stops_after_n_questions_lost(demo_db: Path, tmp_path: Path, llm_env) -> None:
    llm_env(closed_port_url())
    qfile = _question_file(tmp_path / "q.csv", 8)
    result = _eval(demo_db, str(qfile), "--max-llm-failures", "3")
    assert result.exit_code == 3, result.output
    assert "stopped after 3 questions in a row lost to the LLM" in result.stderr
    assert "resume with: afr eval --resume" in result.stderr
    status, done = _run_row(demo_db)
    assert status == "interrupted" and done == 3
    # the summary claims no LLM step that did not run
    assert "1-8 final (not reranked: the LLM failed)" in result.stdout
    assert "the LLM failed: steps 1–2 offline on 3 of 3 questions" in result.stdout
    assert "8_rerank " not in result.stdout and "1_target_type" not in result.stdout


def test_eval_default_stop_and_small_runs(demo_db: Path, tmp_path: Path, llm_env) -> None:
    llm_env(closed_port_url())
    # fewer questions than the limit, all lost: done, but not a success
    result = _eval(demo_db, "demo", "--limit", "3")
    assert result.exit_code == 3, result.output
    assert "all 3 questions asked were lost to the LLM" in result.stderr
    # the default limit is 5
    qfile = _question_file(tmp_path / "q.csv", 7)
    result = _eval(demo_db, str(qfile), "--name", "seven")
    assert result.exit_code == 3 and "stopped after 5 questions" in result.stderr
    # 0: never stop
    result = _eval(demo_db, str(qfile), "--max-llm-failures", "0", "--name", "all")
    assert "stopped" not in result.stderr and "all 7 questions" in result.stderr


def test_eval_keeps_going_on_other_llm_errors(demo_db: Path, tmp_path: Path,
                                              llm_env) -> None:
    """Bad replies are not a dead endpoint: they degrade questions, the run goes on."""
    with FakeOpenAI(lambda r: Reply(status=503, error="busy")) as server:
        llm_env(server.base_url, max_retries=0)
        qfile = _question_file(tmp_path / "q.csv", 7)
        result = _eval(demo_db, str(qfile), "--max-llm-failures", "2", "--json")
    assert result.exit_code == 0, result.output
    summary = json.loads(result.stdout)
    assert summary["status"] == "finished" and summary["degraded"] == 7


def test_eval_labels_without_reranking(demo_db: Path, tmp_path: Path, llm_env) -> None:
    def scripted(request: dict) -> Reply:
        text = prompt_text(request)
        return Reply("exception") if "Reply with the type name" in text else \
            Reply("MATCH (y:exception)-[:exception_inherits_from_exception]-"
                  "(b:exception {name: 'ValueError'}) RETURN y")

    with FakeOpenAI(scripted) as server:
        llm_env(server.base_url)
        result = _eval(demo_db, "demo", "--limit", "2", "--reranker", "none")
    assert result.exit_code == 0, result.output
    assert "1-8 final (no reranking)" in result.stdout  # was "final (reranked)"
    assert "8_rerank" not in result.stdout
    assert "the LLM failed" not in result.stdout and "llm (m, no rerank)" in result.stdout
