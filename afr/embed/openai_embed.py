"""Embeddings from any OpenAI-compatible ``/embeddings`` endpoint (OpenAI, vLLM, Ollama,
llama.cpp's server …), batched, with the LLM client's retry policy."""

from __future__ import annotations

import random
import time
from collections.abc import Callable, Sequence

import numpy as np

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
        self.sleep = sleep
        self.endpoint = base_url or "the OpenAI API"
        self._openai = openai
        self._client = openai.OpenAI(base_url=base_url, api_key=api_key or "not-needed",
                                     timeout=timeout_s, max_retries=0)

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
        o = self._openai
        kwargs = {"model": self.model, "input": batch}
        if self._dim is not None and self.model.startswith("text-embedding-3"):
            kwargs["dimensions"] = self._dim  # only these models can shorten their vectors
        for attempt in range(1, self.max_retries + 2):
            try:
                response = self._client.embeddings.create(**kwargs)
                data = sorted(response.data, key=lambda d: d.index)
                if len(data) != len(batch):
                    raise EmbeddingError(f"{self.endpoint} returned {len(data)} vectors for "
                                         f"{len(batch)} texts")
                return np.asarray([d.embedding for d in data], dtype=np.float32)
            except (o.APIConnectionError, o.APITimeoutError, o.RateLimitError,
                    o.InternalServerError) as exc:
                if attempt > self.max_retries:
                    raise EmbeddingError(f"embedding service {self.endpoint} failed after "
                                         f"{attempt} tries: {type(exc).__name__}") from None
                self.sleep(min(30.0, 0.5 * 2 ** (attempt - 1)) * (0.75 + random.random() / 2))
            except o.OpenAIError as exc:
                message = " ".join(str(exc).split())[:300]
                raise EmbeddingError(f"embedding service {self.endpoint}: {message}") from None
        raise EmbeddingError(f"embedding service {self.endpoint} failed")
