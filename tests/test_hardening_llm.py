"""LLM faults through the whole pipeline, against the local scripted server.

Every fault an OpenAI-compatible endpoint can produce — timeouts, refused connections,
429 with Retry-After, 5xx, empty and reasoning-only replies, cut-off output, replies in
the wrong format, broken JSON, context-length errors — in every LLM step (1 target type,
2 Cypher, 8 rerank). Each must end retried (status ok), degraded to the steps that still
work (status degraded, a warning naming the step), or reported: never an exception out
of ``Pipeline.ask`` and never a traceback from ``afr ask``.
"""

from __future__ import annotations

import socket
import threading
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from afr.cli.main import cli
from click.testing import CliRunner
from fake_openai import FakeOpenAI, Reply, prompt_text
from hostile import Tally
from settings_util import settings_of
from skbutil import two_answer_type_store

from afr.llm import LLMClient
from afr.pipeline.ask import Pipeline
from afr.settings import LLMSettings
from afr.store import DuckDBStore

QUESTION = "Which paper by Thomas Kipf is about graph learning?"
CYPHER = "MATCH (y:paper)<-[:author_writes_paper]-(a:author {name: 'Thomas Kipf'}) RETURN y"
TALLY = Tally()


@pytest.fixture(scope="module", autouse=True)
def _print_tally() -> Iterator[None]:
    yield
    print("\n" + TALLY.table("LLM faults"))


@pytest.fixture(scope="module")
def toy_path(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return two_answer_type_store(tmp_path_factory.mktemp("llm"))


@pytest.fixture
def toy(toy_path: Path) -> Iterator[DuckDBStore]:
    store = DuckDBStore(toy_path)
    yield store
    store.close()


def step_of(request: dict) -> str:
    text = prompt_text(request)
    if "Reply with the type name" in text:
        return "target"
    if "Cypher" in text:
        return "cypher"
    return "rerank"


def good(request: dict) -> Reply:
    step = step_of(request)
    if step == "target":
        return Reply("paper")
    if step == "cypher":
        return Reply(f"```cypher\n{CYPHER}\n```")
    text = prompt_text(request)
    if "Rank all" in text:
        return Reply("3, 1, 2")
    if "Which of the two" in text:
        return Reply("1")
    return Reply("0.7")


def faulty(fault: Callable[[dict], Reply | None], steps: tuple[str, ...]) -> Callable:
    """The good responder, with ``fault`` in the given steps (it may return None: no fault)."""
    def responder(request: dict) -> Reply:
        if step_of(request) in steps:
            reply = fault(request)
            if reply is not None:
                return reply
        return good(request)
    return responder


def first_n(n: int, reply: Reply) -> Callable[[dict], Reply | None]:
    lock, seen = threading.Lock(), [0]

    def fault(request: dict) -> Reply | None:
        with lock:
            seen[0] += 1
            return reply if seen[0] <= n else None
    return fault


def always(reply: Reply) -> Callable[[dict], Reply]:
    return lambda request: reply


def _too_long_with_relations(request: dict) -> Reply | None:
    # A small model: rerank prompts fit only once node descriptions lose their relations.
    return Reply(status=400, error=CONTEXT) if "relations:" in prompt_text(request) else None


CONTEXT = "This model's maximum context length is 512 tokens; you requested 900 tokens"

ALL = ("target", "cypher", "rerank")
# name -> (responder, expected status, words the warnings must contain)
# (factories: a responder may count calls, so each test gets a fresh one)
CASES: dict[str, tuple[Callable[[], Callable], str, tuple[str, ...]]] = {
    "timeout_all": (lambda: faulty(always(Reply("late", delay_s=1.0)), ALL), "degraded",
                    ("timed out", "step 8")),
    "timeout_once": (lambda: faulty(first_n(1, Reply("late", delay_s=1.0)), ALL), "ok", ()),
    "429_retry_after": (lambda: faulty(first_n(1, Reply(status=429, error="slow down",
                                                headers={"Retry-After": "0.05"})), ALL),
                        "ok", ()),
    "429_forever": (lambda: faulty(always(Reply(status=429, error="quota")), ("rerank",)),
                    "degraded", ("rate limited",)),
    "500_then_ok": (lambda: faulty(first_n(1, Reply(status=500, error="boom")), ALL), "ok", ()),
    "503_all": (lambda: faulty(always(Reply(status=503, error="overloaded")), ALL), "degraded",
                ("HTTP 503", "offline formalizer")),
    "empty_content": (lambda: faulty(always(Reply("")), ALL), "degraded", ("empty reply",)),
    "null_content": (lambda: faulty(always(Reply(None)), ("target", "cypher")), "degraded",
                     ("empty reply",)),
    "reasoning_only": (lambda: faulty(always(Reply("", reasoning="hmm, let me think")), ALL),
                       "degraded", ("reasoning only",)),
    "dropped_connection": (lambda: faulty(always(Reply(drop=True)), ALL), "degraded",
                           ("cannot reach",)),
    "broken_json": (lambda: faulty(always(Reply(raw=b'{"choices": [{"message": ')), ALL),
                    "degraded", ("LLM failed",)),
    "not_json": (lambda: faulty(always(Reply(raw=b"<html>502 Bad Gateway</html>")), ALL),
                 "degraded", ("LLM failed",)),
    "html_502": (lambda: faulty(always(Reply(status=502, raw=b"<html>Bad Gateway</html>")), ALL),
                 "degraded", ("HTTP 502",)),
    "cut_off_cypher": (lambda: faulty(always(Reply(CYPHER[:60], finish_reason="length")),
                              ("cypher",)), "ok", ()),
    # A reply that arrives but holds no type, no query, no candidate: unusable, counted
    # as a failure of its own kind (it was "ok" before issue 23).
    "wrong_format": (lambda: faulty(lambda r: Reply("I would say: bananas! " * 3), ALL),
                     "degraded", ("unusable in steps 1–2", "unusable in step 8")),
    "think_tags": (lambda: faulty(lambda r: Reply("<think>rank 99 first</think>"
                                                  + (good(r).content or "")), ALL), "ok", ()),
    "context_rerank_relations": (lambda: faulty(_too_long_with_relations, ("rerank",)), "ok",
                                 ("prompt too long",)),
    "context_all": (lambda: faulty(always(Reply(status=400, error=CONTEXT)), ALL), "degraded",
                    ("prompt too long",)),
    "400_bad_request": (lambda: faulty(always(Reply(status=400, error="invalid 'messages'")), ALL),
                        "degraded", ("rejected the request",)),
    "401": (lambda: faulty(always(Reply(status=401, error="bad key")), ALL), "degraded",
            ("not authorised",)),
}


def pipeline(store: DuckDBStore, url: str, reranker: str = "listwise"
             ) -> tuple[Pipeline, list[float]]:
    slept: list[float] = []
    config = LLMSettings(base_url=url, model="m", api_key="k", timeout_s=0.4, max_retries=1)
    client = LLMClient(config, sleep=slept.append)  # no cache: every call hits the server
    ask_config = settings_of(rerank__method=reranker, ask__k=5)  # type: ignore[arg-type]
    return Pipeline(store, ask_config, llm=client), slept


# Every fault with the listwise reranker; those whose handling differs per reranker
# (shrinking, parsing, retries from parallel threads) with the other two as well.
PAIRS = [(c, "listwise") for c in CASES] + [
    (c, r) for c in CASES if c.startswith(("context", "wrong", "429", "empty", "think"))
    for r in ("pointwise", "pairwise")]


@pytest.mark.parametrize(("case", "reranker"), PAIRS)
def test_fault(toy: DuckDBStore, case: str, reranker: str) -> None:
    factory, status, words = CASES[case]
    responder = factory()
    with FakeOpenAI(responder) as server:
        pipe, slept = pipeline(toy, server.base_url, reranker)
        result = pipe.ask(QUESTION)
        calls = len(server.chat_requests())
    warnings = " ".join(result.warnings)
    assert result.status == status, (result.status, result.warnings)
    for word in words:
        assert word in warnings, (word, result.warnings)
    assert result.answers, "a fault must never lose the question"
    ids = {a.node_id for a in result.answers}
    assert len(ids) == len(result.answers)
    assert calls >= 1
    if case == "429_retry_after":
        assert 0.05 in slept  # Retry-After was honoured
    if status == "ok":
        # The retried or repaired run still finds the answer, through the graph.
        assert "p3" in {a.ext_id for a in result.answers}
    TALLY.add(case.split("_")[0], f"{result.status} ({reranker})", held=True)


def test_connection_refused(toy: DuckDBStore) -> None:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    pipe, slept = pipeline(toy, f"http://127.0.0.1:{port}/v1")
    result = pipe.ask(QUESTION)
    assert result.status == "degraded" and result.answers
    assert any("cannot reach" in w for w in result.warnings)
    # One quick retry in steps 1-2; then the client is down and step 8 does not ask it.
    assert len(slept) == 1
    assert any(w.startswith("LLM skipped in step 8") and "marked down" in w
               for w in result.warnings), result.warnings
    assert result.llm_failure == "unreachable"
    assert result.answers[0].ext_id == "p3"  # the offline formalizer still grounds it
    TALLY.add("refused", "degraded", held=True)


def test_every_fault_is_logged_as_a_run(toy: DuckDBStore) -> None:
    """A degraded run is logged with its status and warnings, like any other."""
    with FakeOpenAI(faulty(always(Reply(status=500, error="down")), ALL)) as server:
        pipe, _ = pipeline(toy, server.base_url)
        result = pipe.ask(QUESTION)
    status, warnings = toy.query("SELECT status, warnings FROM runs WHERE run_id = $r",
                                 {"r": result.run_id})[0]
    assert status == "degraded" and any("HTTP 500" in w for w in warnings)  # JSON, decoded
    TALLY.add("500", "logged", held=True)


def _settings(tmp_path: Path, url: str) -> Path:
    path = tmp_path / "afr.toml"
    path.write_text(f'[llm]\nbase_url = "{url}"\nmodel = "m"\napi_key = "k"\n'
                    "timeout_s = 0.4\nmax_retries = 1\n")
    return path


@pytest.mark.parametrize("case", ["503_all", "reasoning_only", "not_json", "refused"])
def test_cli_ask_never_tracebacks(toy_path: Path, tmp_path: Path, case: str,
                                  monkeypatch: pytest.MonkeyPatch) -> None:
    if case == "refused":
        with socket.socket() as s:
            s.bind(("127.0.0.1", 0))
            url = f"http://127.0.0.1:{s.getsockname()[1]}/v1"
        server = None
    else:
        server = FakeOpenAI(CASES[case][0]()).__enter__()
        url = server.base_url
    try:
        monkeypatch.setenv("AFR_CONFIG", str(_settings(tmp_path, url)))
        for var in ("AFR_LLM_BASE_URL", "AFR_LLM_MODEL", "AFR_LLM_API_KEY", "AFR_LLM_TIMEOUT"):
            monkeypatch.delenv(var, raising=False)
        result = CliRunner().invoke(cli, ["--db", str(toy_path), "ask", QUESTION,
                                          "--reranker", "listwise", "--no-cache"])
    finally:
        if server is not None:
            server.__exit__(None, None, None)
    # The answers are printed, and the exit code says the configured LLM failed.
    assert result.exit_code == 3, result.output
    assert "Traceback" not in result.output and "internal error" not in result.output
    assert "note: LLM failed" in result.output
    assert "Kipf" in result.output or "GCN" in result.output or "p3" in result.output
    TALLY.add("cli", f"exit 3 ({case})", held=True)
