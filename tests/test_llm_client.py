"""The LLM client against a real local HTTP server with scripted replies and faults."""

from __future__ import annotations

import socket

import pytest
from fake_openai import FakeOpenAI, Reply

from afr.errors import LLMError
from afr.llm import ContextLengthError, EmptyReplyError, LLMClient, MemoryLLMCache
from afr.settings import LLMSettings, resolve_settings

MESSAGES = [{"role": "user", "content": "say hello"}]


def client(server: FakeOpenAI, **kw) -> tuple[LLMClient, list[float]]:
    slept: list[float] = []
    config = LLMSettings(base_url=server.base_url, model="m", api_key="k",
                       timeout_s=kw.pop("timeout_s", 5), max_retries=kw.pop("max_retries", 3))
    return LLMClient(config, sleep=slept.append, **kw), slept


def test_success_tokens_and_cache() -> None:
    with FakeOpenAI(lambda r: Reply("hello there")) as server:
        llm, _ = client(server, cache=MemoryLLMCache())
        first = llm.complete(MESSAGES)
        assert first.text == "hello there" and not first.cached
        assert first.prompt_tokens == 2 and first.completion_tokens == 2
        second = llm.complete(MESSAGES)
        assert second.cached and second.text == "hello there"
        assert len(server.chat_requests()) == 1
        stats = llm.stats
        assert stats.calls == 2 and stats.cached == 1
        assert stats.prompt_tokens + stats.completion_tokens == 4


def test_429_honours_retry_after() -> None:
    replies = iter([Reply(status=429, error="slow down", headers={"Retry-After": "7"}),
                    Reply("fine")])
    with FakeOpenAI(lambda r: next(replies)) as server:
        llm, slept = client(server)
        assert llm.complete(MESSAGES).text == "fine"
        assert slept == [7.0]


def test_500_then_success() -> None:
    replies = iter([Reply(status=500, error="boom"), Reply(status=503, error="busy"),
                    Reply("ok now")])
    with FakeOpenAI(lambda r: next(replies)) as server:
        llm, slept = client(server)
        assert llm.complete(MESSAGES).text == "ok now"
        assert len(slept) == 2


def test_persistent_500_is_one_line() -> None:
    with FakeOpenAI(lambda r: Reply(status=500, error="down")) as server:
        llm, _ = client(server, max_retries=2)
        with pytest.raises(LLMError) as info:
            llm.complete(MESSAGES)
        assert "HTTP 500" in str(info.value) and "\n" not in str(info.value)


def test_connection_refused() -> None:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    llm = LLMClient(LLMSettings(base_url=f"http://127.0.0.1:{port}/v1", model="m",
                              max_retries=1), sleep=lambda s: None)
    with pytest.raises(LLMError, match="cannot reach"):
        llm.complete(MESSAGES)


def test_timeout() -> None:
    with FakeOpenAI(lambda r: Reply("late", delay_s=1.5)) as server:
        llm, _ = client(server, timeout_s=0.3, max_retries=1)
        with pytest.raises(LLMError, match="timed out"):
            llm.complete(MESSAGES)


def test_context_length() -> None:
    error = "This model's maximum context length is 8192 tokens. However, you requested 9000"
    with FakeOpenAI(lambda r: Reply(status=400, error=error)) as server:
        llm, _ = client(server)
        with pytest.raises(ContextLengthError):
            llm.complete(MESSAGES)


def test_reasoning_only_reply() -> None:
    with FakeOpenAI(lambda r: Reply("", reasoning="thinking hard…")) as server:
        llm, _ = client(server, max_retries=1)
        with pytest.raises(EmptyReplyError, match="reasoning only"):
            llm.complete(MESSAGES)


def test_unauthorised_and_not_found() -> None:
    with FakeOpenAI(lambda r: Reply(status=401, error="bad key")) as server, \
            pytest.raises(LLMError, match="not authorised"):
        client(server)[0].complete(MESSAGES)
    with FakeOpenAI(lambda r: Reply(status=404, error="no such model")) as server, \
            pytest.raises(LLMError, match="not found"):
        client(server)[0].complete(MESSAGES)


def test_reasoning_effort_rejected_is_dropped() -> None:
    def responder(request: dict) -> Reply:
        if "reasoning_effort" in request:
            return Reply(status=400, error="Unrecognized request argument: reasoning_effort")
        return Reply("done")

    with FakeOpenAI(responder) as server:
        llm, _ = client(server)
        assert llm.complete(MESSAGES, reasoning_effort="low").text == "done"


def test_config_from_env(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("AFR_LLM_BASE_URL", "http://x/v1")
    monkeypatch.setenv("AFR_LLM_MODEL", "qwen")
    monkeypatch.delenv("AFR_LLM_API_KEY", raising=False)
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test")
    config = resolve_settings({"llm.model": "other"}, use_file=False).settings.llm
    assert config.base_url == "http://x/v1" and config.model == "other"
    assert config.api_key == "sk-test" and config.configured
    monkeypatch.delenv("AFR_LLM_MODEL")
    assert not resolve_settings(use_file=False).settings.llm.configured
