"""One chat client for any OpenAI-compatible endpoint (OpenAI, vLLM, Ollama, llama.cpp …).

Retries with exponential backoff and jitter (429 honours Retry-After), timeouts, token
and latency accounting, and an optional cache (the store's ``llm_calls`` table) keyed by
model, messages and parameters. Every failure is an ``LLMError`` with a one-line message.

A dead endpoint fails fast: a refused connection or a failed name lookup gets one quick
retry, then the client is *down* for the rest of the process and every later call fails
at once (``LLMUnavailableError``), as do calls after a 401/403 (and, per model, a 404).
An endpoint that accepts the connection but never answers is down too, once
``TIMEOUTS_DOWN`` tries in a row have timed out with no reply between them (one slow reply
is not down: any reply starts the count again). A ``WaitBudget`` bounds what one
question may spend on failing calls, backoff included.
"""

from __future__ import annotations

import hashlib
import json
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from typing import Any, Protocol

from afr.api_failures import (
    NOT_A_REPLY,
    QUICK_RETRY_S,
    TIMEOUTS_DOWN,
    backoff,
    connect_failure,
    describe,
    retry_after,
    root_cause,
)
from afr.errors import LLMError
from afr.settings import LLMSettings
from afr.text import clean_text


class ContextLengthError(LLMError):
    """The prompt does not fit the model's context window."""


class EmptyReplyError(LLMError):
    """The model answered with no content (e.g. only reasoning)."""


class UnusableReplyError(LLMError):
    """A reply arrived but holds nothing the step can use: no query in a Cypher reply, no
    known type in step 1's, no candidate named in a rerank reply. Not retried (the same
    prompt gets the same reply from the cache, and mostly from the model too)."""


# Kinds of LLMUnavailableError: the endpoint cannot be reached (refused, DNS, connect
# timeout, dropped connections), does not answer in time, or refuses access (401/403/404).
UNREACHABLE, TIMEOUT, ACCESS = "unreachable", "timeout", "access"


class LLMUnavailableError(LLMError):
    """The endpoint cannot be used at all, as opposed to one bad reply. ``kind`` is one of
    ``unreachable``, ``timeout`` or ``access``; ``skipped`` when no request was sent because
    the client is down."""

    def __init__(self, message: str, *, kind: str, skipped: bool = False) -> None:
        super().__init__(message)
        self.kind = kind
        self.skipped = skipped


class WaitBudget:
    """How long one question may wait on failing LLM calls, retries and backoff included.

    Failed calls and backoff sleeps spend it; a call never waits longer than what is left,
    and once it is spent the question's remaining LLM calls fail at once. Successful calls
    cost nothing. Shared by a question's threads (the pointwise reranker)."""

    def __init__(self, seconds: float) -> None:
        self.seconds = seconds
        self.spent = 0.0
        self.last_error: LLMError | None = None  # the failure that spent it last
        self._lock = threading.Lock()

    @classmethod
    def for_question(cls, timeout_s: float) -> WaitBudget:
        """The bound of one ask: twice the per-call timeout, plus a second."""
        return cls(2 * timeout_s + 1.0)

    @property
    def left(self) -> float:
        with self._lock:
            return self.seconds - self.spent

    def spend(self, seconds: float, error: LLMError | None = None) -> None:
        with self._lock:
            self.spent += max(0.0, seconds)
            self.last_error = error or self.last_error


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
    def __init__(self, config: LLMSettings, *, cache: LLMCache | None = None,
                 use_cache: bool = True,
                 sleep: Callable[[float], None] = time.sleep,
                 clock: Callable[[], float] = time.perf_counter) -> None:
        """``sleep`` waits between retries and ``clock`` measures calls (seconds): tests
        pass their own, so that what a question's ``WaitBudget`` is charged is counted
        rather than timed."""
        import openai

        self.config = config
        self.cache = cache
        self.use_cache = use_cache
        self.sleep = sleep
        self.clock = clock
        self.stats = LLMStats()
        self._openai = openai
        self._client = openai.OpenAI(
            base_url=config.base_url, api_key=config.api_key or "not-needed",
            timeout=config.timeout_s, max_retries=0,
        )
        self._drop_effort = False
        # Why the endpoint is down for the rest of the process (None: it is not), and the
        # models it said it does not have.
        self.down: LLMUnavailableError | None = None
        self._missing: dict[str, LLMUnavailableError] = {}
        self._timeouts = 0  # tries in a row that timed out (a reply sets it back to 0)
        self._count_lock = threading.Lock()

    @property
    def endpoint(self) -> str:
        return self.config.base_url or "the OpenAI API"

    def _mark_down(self, error: LLMUnavailableError) -> LLMUnavailableError:
        if self.down is None:
            self.down = error
        return error

    def _skip(self, model: str) -> LLMUnavailableError | None:
        """The error of a call that is not worth sending: the endpoint or model is gone."""
        if self.down is not None:
            why = f"the LLM is marked down for this run: {self.down}"
            return LLMUnavailableError(why, kind=self.down.kind, skipped=True)
        missing = self._missing.get(model)
        if missing is not None:
            why = f"model {model} was not found earlier in this run: {missing}"
            return LLMUnavailableError(why, kind=missing.kind, skipped=True)
        return None

    def complete(self, messages: list[dict[str, Any]], *, model: str | None = None,
                 reasoning_effort: str | None = None, temperature: float | None = None,
                 max_tokens: int | None = None, budget: WaitBudget | None = None,
                 seed: int | None = None) -> LLMReply:
        """One chat completion. ``budget``: the question's allowance for failing calls.
        ``seed``: one of several samples of the same prompt (sent as the API's ``seed``,
        and part of the cache key, so each sample is cached on its own)."""
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
        if seed is not None:
            request["seed"] = int(seed)
        key = cache_key(request)
        if self.cache is not None and self.use_cache:
            hit = self.cache.get(key)
            if hit is not None:
                hit = replace(hit, cached=True)
                self.stats.add(hit)
                return hit
        skip = self._skip(request["model"])
        if skip is not None:
            raise skip
        reply = self._call_with_retries(request, budget)
        if self.cache is not None:
            self.cache.put(key, request, reply)
        self.stats.add(reply)
        return reply

    def _call_with_retries(self, request: dict[str, Any],
                           budget: WaitBudget | None = None) -> LLMReply:
        """Send ``request`` until a try succeeds: a 400 about ``reasoning_effort`` goes again
        at once without it; other failures wait and retry, ``max_retries`` times at most,
        unless another try cannot help."""
        o = self._openai
        attempt = 0
        while True:
            attempt += 1
            timeout = self._timeout_within(budget)
            started = self.clock()
            try:
                reply = self._call_once(request, timeout)
                with self._count_lock:
                    self._timeouts = 0
                return reply
            except o.BadRequestError as exc:
                request = self._without_rejected_effort(request, exc)
                continue
            except (EmptyReplyError, o.OpenAIError, *NOT_A_REPLY) as exc:
                error, delay = self._failed_try(exc, request, attempt, timeout)
            if attempt > self.config.max_retries:
                raise error from None
            self._wait_before_retry(delay, budget, started, error)

    def _timeout_within(self, budget: WaitBudget | None) -> float:
        """The timeout of the next try: the configured one, cut to what the question's
        budget has left; raised at once when too little is left for a call worth making."""
        timeout = self.config.timeout_s
        if budget is not None:
            if budget.left < self._least_call:
                raise _out_of_budget(budget.last_error or LLMError(
                    f"{self.endpoint}: no time left"), budget, skipped=True) from None
            timeout = min(timeout, budget.left)
        return timeout

    def _without_rejected_effort(self, request: dict[str, Any],
                                 exc: Exception) -> dict[str, Any]:
        """The request to send again after a 400: the same without ``reasoning_effort``
        when that is what the server rejected (once per client); any other 400 is raised."""
        text = describe(exc)
        if any(w in text.lower() for w in _CONTEXT_WORDS):
            raise ContextLengthError(f"{self.endpoint}: prompt too long for the "
                                     f"model ({text})") from None
        if "reasoning_effort" in request and "reasoning" in text.lower() \
                and not self._drop_effort:
            # Some servers reject the parameter: go on without it.
            self._drop_effort = True
            return {k: v for k, v in request.items() if k != "reasoning_effort"}
        raise LLMError(f"{self.endpoint} rejected the request: {text}") from None

    def _failed_try(self, exc: Exception, request: dict[str, Any], attempt: int,
                    timeout: float) -> tuple[LLMError, float]:
        """The error of a failed try, to raise if no later try succeeds, and the wait
        before the next; raised at once when another try cannot help."""
        o = self._openai
        if isinstance(exc, EmptyReplyError):
            return exc, backoff(attempt)
        if isinstance(exc, (o.AuthenticationError, o.PermissionDeniedError)):
            raise self._mark_down(LLMUnavailableError(
                f"{self.endpoint}: not authorised ({describe(exc)}); check "
                "AFR_LLM_API_KEY", kind=ACCESS)) from None
        if isinstance(exc, o.NotFoundError):
            missing = LLMUnavailableError(
                f"{self.endpoint}: not found ({describe(exc)}); check the base URL and "
                f"the model name ({request['model']})", kind=ACCESS)
            self._missing[request["model"]] = missing
            raise missing from None
        if isinstance(exc, o.RateLimitError):
            error = LLMError(f"{self.endpoint}: rate limited after {attempt} tries")
            return error, retry_after(exc) or backoff(attempt)
        if isinstance(exc, o.APIConnectionError):  # timeouts included
            return self._connection_failure(exc, attempt, timeout)
        if isinstance(exc, o.APIStatusError):
            error = LLMError(f"{self.endpoint} answered HTTP {exc.status_code}: "
                             f"{describe(exc)}")
            if exc.status_code < 500:
                raise error from None
            return error, backoff(attempt)
        if isinstance(exc, o.OpenAIError):
            raise LLMError(f"{self.endpoint}: {describe(exc)}") from None
        # A body that is not a chat completion (broken JSON, a proxy's HTML page with
        # status 200, a cut-off stream): the SDK fails while reading it.
        error = LLMError(f"{self.endpoint} answered something that is not a chat "
                         f"completion ({type(exc).__name__}: {describe(exc)[:120]})")
        return error, backoff(attempt)

    def _connection_failure(self, exc: Exception, attempt: int,
                            timeout: float) -> tuple[LLMError, float]:
        """``_failed_try`` for a try that got no answer: a timeout or a lost connection."""
        if isinstance(exc, self._openai.APITimeoutError):
            if connect_failure(exc):
                # Nothing answered the connection within the timeout: a retry would
                # only wait as long again.
                raise self._mark_down(LLMUnavailableError(
                    f"cannot reach {self.endpoint}: no connection within "
                    f"{timeout:.1f} s", kind=UNREACHABLE)) from None
            error = LLMUnavailableError(
                f"{self.endpoint}: timed out after {attempt} tries ({timeout:.1f} s "
                "each at most)", kind=TIMEOUT)
            if self._timed_out_too_often(timeout):
                raise self._mark_down(LLMUnavailableError(
                    f"{self.endpoint}: timed out {TIMEOUTS_DOWN} times in a row, no reply "
                    f"between ({timeout:.1f} s each; raise timeout_s or AFR_LLM_TIMEOUT if "
                    "the model is only slow)", kind=TIMEOUT)) from None
            return error, backoff(attempt)
        reason = describe(root_cause(exc))
        error = LLMUnavailableError(f"cannot reach {self.endpoint}: {reason}",
                                    kind=UNREACHABLE)
        if connect_failure(exc):
            # Refused or no such host: one quick retry, then down for good.
            if attempt > min(1, self.config.max_retries):
                raise self._mark_down(error) from None
            return error, QUICK_RETRY_S
        return error, backoff(attempt)

    def _timed_out_too_often(self, timeout: float) -> bool:
        """Count a timed-out try; True once ``TIMEOUTS_DOWN`` in a row have. A try cut
        short by a question's budget proves less than the whole timeout: not counted."""
        if timeout < self.config.timeout_s:
            return False
        with self._count_lock:
            self._timeouts += 1
            return self._timeouts >= TIMEOUTS_DOWN

    def _wait_before_retry(self, delay: float, budget: WaitBudget | None, started: float,
                           error: LLMError) -> None:
        """Sleep ``delay`` before the next try, charging the failed try and the wait to the
        question's budget; raised instead when the budget cannot pay for both."""
        if budget is not None:
            budget.spend(self.clock() - started, error)
            # Another try must fit the question's budget: the wait, and a call that
            # has a real chance.
            if budget.left - delay < self._least_call:
                raise _out_of_budget(error, budget) from None
            budget.spend(delay)
        self.sleep(delay)

    @property
    def _least_call(self) -> float:
        """The shortest wait worth a call: a tenth of the timeout, at least 50 ms."""
        return max(0.05, self.config.timeout_s / 10)

    def _call_once(self, request: dict[str, Any], timeout: float | None = None) -> LLMReply:
        started = self.clock()
        if timeout is not None and timeout != self.config.timeout_s:
            response = self._client.chat.completions.create(**request, timeout=timeout)
        else:
            response = self._client.chat.completions.create(**request)
        latency = self.clock() - started
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


def _out_of_budget(error: LLMError, budget: WaitBudget, *, skipped: bool = False) -> LLMError:
    limit = f"{budget.seconds:.1f} s = 2 × timeout_s + 1 s"
    if skipped:
        message = (f"this question has used up its wait for a failing LLM, {limit}; "
                   f"last failure: {error}")
    else:
        message = (f"{error} (gave up: this question had waited {budget.spent:.1f} s on "
                   f"failing LLM calls, its limit is {limit})")
    if isinstance(error, LLMUnavailableError):
        return LLMUnavailableError(message, kind=error.kind, skipped=skipped)
    return LLMError(message)
