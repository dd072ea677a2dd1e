"""Embeddings from any OpenAI-compatible ``/embeddings`` endpoint (OpenAI, vLLM, Ollama,
llama.cpp's server …), batched.

Failures follow the LLM client's rules (``afr.api_failures``): a refused connection or an
unknown host gets one quick retry, a connect timeout none, two timed-out tries in a row
end it too — and then the embedder is *down*: every later batch fails at once with the
same message. 401/403/404 fail at once; 429 and 5xx back off and retry. Every message
names the cause ("Connection refused", the server's error text).
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence

import numpy as np

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
from afr.errors import EmbeddingError


class OpenAIEmbedder:
    def __init__(self, *, base_url: str | None, model: str, api_key: str | None = None,
                 dim: int | None = None, batch_size: int = 128, timeout_s: float = 60.0,
                 max_retries: int = 4, sleep: Callable[[float], None] = time.sleep) -> None:
        import openai

        self.model = model
        self.model_id = f"openai:{model}"
        self._dim = dim
        self.batch_size = batch_size
        self.max_retries = max_retries
        self.timeout_s = timeout_s
        self.sleep = sleep
        self.endpoint = base_url or "the OpenAI API"
        self._openai = openai
        self._client = openai.OpenAI(base_url=base_url, api_key=api_key or "not-needed",
                                     timeout=timeout_s, max_retries=0)
        self.down: str | None = None  # why the endpoint is not asked again in this run
        self._timeouts = 0  # tries in a row that timed out

    @property
    def known_dim(self) -> int | None:
        """The dimension when known without a request (given, or seen in a reply)."""
        return self._dim

    @property
    def dim(self) -> int:
        if self._dim is None:
            self._dim = int(self.embed(["dimension probe"]).shape[1])
        return self._dim

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        out: list[np.ndarray] = []
        for start in range(0, len(texts), self.batch_size):
            batch = [t if t.strip() else " " for t in texts[start:start + self.batch_size]]
            out.append(self._batch(batch))
        if not out:
            return np.zeros((0, self._dim or 0), dtype=np.float32)
        vectors = np.vstack(out).astype(np.float32)
        if self._dim is None:
            self._dim = vectors.shape[1]
        norms = np.linalg.norm(vectors, axis=1, keepdims=True)
        return vectors / np.where(norms == 0, 1, norms)

    def _batch(self, batch: list[str]) -> np.ndarray:
        """One request, tried until it succeeds, ``max_retries`` more times at most, unless
        another try cannot help."""
        if self.down is not None:
            raise EmbeddingError(f"{self.down} (not asked again in this run)")
        kwargs = {"model": self.model, "input": batch}
        if self._dim is not None and self.model.startswith("text-embedding-3"):
            kwargs["dimensions"] = self._dim  # only these models can shorten their vectors
        attempt = 0
        while True:
            attempt += 1
            try:
                response = self._client.embeddings.create(**kwargs)
                vectors = self._vectors(response, len(batch))
                self._timeouts = 0
                return vectors
            except (self._openai.OpenAIError, *NOT_A_REPLY) as exc:
                error, delay = self._failed_try(exc, attempt)
            if attempt > self.max_retries:
                raise EmbeddingError(f"{error} (after {attempt} tries)")
            self.sleep(delay)

    def _vectors(self, response, texts: int) -> np.ndarray:
        data = sorted(response.data, key=lambda d: d.index)
        if len(data) != texts:
            raise EmbeddingError(f"embedding service {self.endpoint} returned {len(data)} "
                                 f"vectors for {texts} texts")
        return np.asarray([d.embedding for d in data], dtype=np.float32)

    def _failed_try(self, exc: Exception, attempt: int) -> tuple[str, float]:
        """What went wrong in one try, to report if no later try succeeds, and the wait
        before the next; raised at once when another try cannot help."""
        o, where = self._openai, f"embedding service {self.endpoint}"
        if isinstance(exc, (o.AuthenticationError, o.PermissionDeniedError)):
            raise self._give_up(f"{where}: not authorised ({describe(exc)}); check "
                                "AFR_EMBED_API_KEY (else AFR_LLM_API_KEY is sent)")
        if isinstance(exc, o.NotFoundError):
            raise self._give_up(f"{where}: not found ({describe(exc)}); check the base URL "
                                f"(AFR_EMBED_BASE_URL) and the model name ({self.model})")
        if isinstance(exc, o.RateLimitError):
            return f"{where}: rate limited", retry_after(exc) or backoff(attempt)
        if isinstance(exc, o.APITimeoutError) and not connect_failure(exc):
            self._timeouts += 1
            if self._timeouts >= TIMEOUTS_DOWN:
                raise self._give_up(f"{where}: timed out {TIMEOUTS_DOWN} times in a row "
                                    f"({self.timeout_s:.1f} s each)")
            return f"{where}: timed out ({self.timeout_s:.1f} s)", backoff(attempt)
        if isinstance(exc, o.APIConnectionError):
            return self._unreachable(exc, attempt, where)
        if isinstance(exc, o.APIStatusError):
            error = f"{where} answered HTTP {exc.status_code}: {describe(exc)}"
            if exc.status_code < 500:
                raise EmbeddingError(error)
            return error, backoff(attempt)
        if isinstance(exc, o.OpenAIError):
            raise EmbeddingError(f"{where}: {describe(exc)}")
        return (f"{where} answered something that is not an embeddings reply "
                f"({type(exc).__name__}: {describe(exc)[:120]})"), backoff(attempt)

    def _unreachable(self, exc: Exception, attempt: int, where: str) -> tuple[str, float]:
        """``_failed_try`` for a try that got no connection, or lost it."""
        error = f"cannot reach the {where}: {describe(root_cause(exc))}"
        if not connect_failure(exc):
            return error, backoff(attempt)  # a dropped connection: the server is there
        if isinstance(exc, self._openai.APITimeoutError) \
                or attempt > min(1, self.max_retries):
            raise self._give_up(error)  # refused or no such host: one quick retry
        return error, QUICK_RETRY_S

    def _give_up(self, why: str) -> EmbeddingError:
        """The endpoint is down for this run: later batches fail at once with ``why``."""
        self.down = why
        return EmbeddingError(why)
