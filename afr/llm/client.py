"""One chat client for any OpenAI-compatible endpoint (OpenAI, vLLM, Ollama, llama.cpp …).

Retries with exponential backoff and jitter (429 honours Retry-After), timeouts, token
and latency accounting, and an optional cache (the store's ``llm_calls`` table) keyed by
model, messages and parameters. Every failure is an ``LLMError`` with a one-line message.
"""

from __future__ import annotations

import hashlib
import json
import random
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from typing import Any, Protocol

from afr.errors import LLMError
from afr.text import clean_text


class ContextLengthError(LLMError):
    """The prompt does not fit the model's context window."""


class EmptyReplyError(LLMError):
    """The model answered with no content (e.g. only reasoning)."""


@dataclass
class LLMConfig:
    base_url: str | None = None
    model: str | None = None
    api_key: str | None = None
    timeout_s: float = 120.0
    max_retries: int = 4
    temperature: float = 0.0
    reasoning_effort: str | None = None
    max_tokens: int | None = None

    @classmethod
    def from_env(cls, **overrides: Any) -> LLMConfig:
        """Overrides (flags) beat environment variables, which beat the settings file
        (``afr.settings.resolve_llm``)."""
        from afr.settings import resolve_llm

        return cls(**resolve_llm(overrides))

    @property
    def configured(self) -> bool:
        return bool(self.model and (self.base_url or self.api_key))


@dataclass
class LLMReply:
    text: str
    model: str
    prompt_tokens: int = 0
    completion_tokens: int = 0
    latency_s: float = 0.0
    cached: bool = False
    finish_reason: str | None = None
    reasoning: str | None = None


class LLMCache(Protocol):
    def get(self, key: str) -> LLMReply | None: ...

    def put(self, key: str, request: dict[str, Any], reply: LLMReply) -> None: ...


@dataclass
class LLMStats:
    calls: int = 0
    cached: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    _lock: threading.Lock = field(default_factory=threading.Lock, repr=False)

    def add(self, reply: LLMReply) -> None:
        with self._lock:
            self.calls += 1
            if reply.cached:
                self.cached += 1
            else:
                self.prompt_tokens += reply.prompt_tokens
                self.completion_tokens += reply.completion_tokens


def cache_key(request: dict[str, Any]) -> str:
    canonical = json.dumps(request, sort_keys=True, ensure_ascii=False, separators=(",", ":"))
    return hashlib.sha256(canonical.encode("utf-8")).hexdigest()


_CONTEXT_WORDS = ("context length", "context_length", "maximum context", "too many tokens",
                  "context window", "prompt is too long", "exceeds the context")


class LLMClient:
    def __init__(self, config: LLMConfig, *, cache: LLMCache | None = None,
                 use_cache: bool = True,
                 sleep: Callable[[float], None] = time.sleep) -> None:
        import openai

        self.config = config
        self.cache = cache
        self.use_cache = use_cache
        self.sleep = sleep
        self.stats = LLMStats()
        self._openai = openai
        self._client = openai.OpenAI(
            base_url=config.base_url, api_key=config.api_key or "not-needed",
            timeout=config.timeout_s, max_retries=0,
        )
        self._drop_effort = False

    @property
    def endpoint(self) -> str:
        return self.config.base_url or "the OpenAI API"

    def complete(self, messages: list[dict[str, Any]], *, model: str | None = None,
                 reasoning_effort: str | None = None, temperature: float | None = None,
                 max_tokens: int | None = None) -> LLMReply:
        request: dict[str, Any] = {
            "model": model or self.config.model,
            "messages": messages,
            "temperature": self.config.temperature if temperature is None else temperature,
        }
        effort = reasoning_effort or self.config.reasoning_effort
        if effort:
            request["reasoning_effort"] = effort
        if max_tokens or self.config.max_tokens:
            request["max_tokens"] = max_tokens or self.config.max_tokens
        key = cache_key(request)
        if self.cache is not None and self.use_cache:
            hit = self.cache.get(key)
            if hit is not None:
                hit = replace(hit, cached=True)
                self.stats.add(hit)
                return hit
        reply = self._call_with_retries(request)
        if self.cache is not None:
            self.cache.put(key, request, reply)
        self.stats.add(reply)
        return reply

    def _call_with_retries(self, request: dict[str, Any]) -> LLMReply:
        o = self._openai
        attempt = 0
        while True:
            attempt += 1
            try:
                return self._call_once(request)
            except EmptyReplyError:
                if attempt > self.config.max_retries:
                    raise
                delay = self._backoff(attempt)
            except o.BadRequestError as exc:
                text = _message(exc)
                if any(w in text.lower() for w in _CONTEXT_WORDS):
                    raise ContextLengthError(f"{self.endpoint}: prompt too long for the "
                                             f"model ({text})") from None
                if "reasoning_effort" in request and "reasoning" in text.lower() \
                        and not self._drop_effort:
                    # Some servers reject the parameter: go on without it.
                    self._drop_effort = True
                    request = {k: v for k, v in request.items() if k != "reasoning_effort"}
                    continue
                raise LLMError(f"{self.endpoint} rejected the request: {text}") from None
            except (o.AuthenticationError, o.PermissionDeniedError) as exc:
                raise LLMError(f"{self.endpoint}: not authorised ({_message(exc)}); "
                               "check AFR_LLM_API_KEY") from None
            except o.NotFoundError as exc:
                raise LLMError(f"{self.endpoint}: not found ({_message(exc)}); check the "
                               "base URL and the model name") from None
            except o.RateLimitError as exc:
                if attempt > self.config.max_retries:
                    raise LLMError(f"{self.endpoint}: rate limited after {attempt} tries") \
                        from None
                delay = _retry_after(exc) or self._backoff(attempt)
            except o.APITimeoutError:
                if attempt > self.config.max_retries:
                    raise LLMError(f"{self.endpoint}: timed out after {attempt} tries "
                                   f"({self.config.timeout_s:.0f} s each)") from None
                delay = self._backoff(attempt)
            except o.APIConnectionError as exc:
                if attempt > self.config.max_retries:
                    raise LLMError(f"cannot reach {self.endpoint}: "
                                   f"{_message(exc.__cause__ or exc)}") from None
                delay = self._backoff(attempt)
            except o.APIStatusError as exc:
                if exc.status_code < 500 or attempt > self.config.max_retries:
                    raise LLMError(f"{self.endpoint} answered HTTP {exc.status_code}: "
                                   f"{_message(exc)}") from None
                delay = self._backoff(attempt)
            except o.OpenAIError as exc:
                raise LLMError(f"{self.endpoint}: {_message(exc)}") from None
            except (ValueError, TypeError, AttributeError, KeyError) as exc:
                # A body that is not a chat completion (broken JSON, a proxy's HTML page
                # with status 200, a cut-off stream): the SDK fails while reading it.
                if attempt > self.config.max_retries:
                    raise LLMError(f"{self.endpoint} answered something that is not a chat "
                                   f"completion ({type(exc).__name__}: "
                                   f"{_message(exc)[:120]})") from None
                delay = self._backoff(attempt)
            self.sleep(delay)

    def _backoff(self, attempt: int) -> float:
        return min(30.0, 0.5 * 2 ** (attempt - 1)) * (0.75 + 0.5 * random.random())

    def _call_once(self, request: dict[str, Any]) -> LLMReply:
        started = time.perf_counter()
        response = self._client.chat.completions.create(**request)
        latency = time.perf_counter() - started
        if not response.choices:
            raise EmptyReplyError(f"{self.endpoint}: the reply had no choices")
        choice = response.choices[0]
        message = choice.message
        text = clean_text(message.content or "")
        reasoning = getattr(message, "reasoning_content", None) or getattr(
            message, "reasoning", None)
        if isinstance(reasoning, str):
            reasoning = clean_text(reasoning)
        if not text.strip():
            raise EmptyReplyError(f"{self.endpoint}: empty reply"
                                  + (" (reasoning only)" if reasoning else ""))
        usage = response.usage
        return LLMReply(
            text=text, model=response.model or request["model"],
            prompt_tokens=getattr(usage, "prompt_tokens", 0) or 0,
            completion_tokens=getattr(usage, "completion_tokens", 0) or 0,
            latency_s=latency, finish_reason=choice.finish_reason,
            reasoning=reasoning if isinstance(reasoning, str) else None,
        )


def _message(exc: BaseException) -> str:
    body = getattr(exc, "body", None)
    if isinstance(body, dict):
        err = body.get("error", body)
        if isinstance(err, dict) and err.get("message"):
            return " ".join(str(err["message"]).split())[:300]
    return " ".join(str(exc).split())[:300] or type(exc).__name__


def _retry_after(exc: Exception) -> float | None:
    response = getattr(exc, "response", None)
    headers = getattr(response, "headers", None) or {}
    value = headers.get("retry-after") if hasattr(headers, "get") else None
    try:
        return min(60.0, max(0.0, float(value))) if value is not None else None
    except ValueError:
        return None
