"""LLM reply caches: the store's ``llm_calls`` table (cache and call log), and a
plain in-memory one.

Every reply is logged with its request, tokens and latency; a request identical in
model, messages and parameters is answered from the table, so a repeated question costs
nothing and an interrupted evaluation resumes without repeating calls.
"""

from __future__ import annotations

import json
import threading
from typing import Any

from afr.llm.client import LLMReply
from afr.store.base import Store


class StoreLLMCache:
    def __init__(self, store: Store, *, run_id: str | None = None, step: str | None = None
                 ) -> None:
        self.store = store
        self.run_id = run_id
        self.step = step
        # One store connection serves the reranker's threads: calls take turns.
        self._lock = threading.Lock()

    def get(self, key: str) -> LLMReply | None:
        with self._lock:
            rows = self.store.run("llm/cache_get.sql", {"key": key})
        if not rows:
            return None
        text, model, pt, ct, latency, finish, reasoning = rows[0]
        return LLMReply(text=text, model=model, prompt_tokens=int(pt or 0),
                        completion_tokens=int(ct or 0), latency_s=float(latency or 0.0),
                        cached=True, finish_reason=finish, reasoning=reasoning)

    def put(self, key: str, request: dict[str, Any], reply: LLMReply) -> None:
        params = {
            "key": key, "run_id": self.run_id, "step": self.step, "model": reply.model,
            "request": json.dumps(request, ensure_ascii=False, default=str),
            "response": reply.text, "reasoning": reply.reasoning,
            "finish_reason": reply.finish_reason, "prompt_tokens": reply.prompt_tokens,
            "completion_tokens": reply.completion_tokens, "latency_s": reply.latency_s,
            "error": None,
        }
        with self._lock, self.store.transaction():
            self.store.run("llm/cache_put.sql", params)


class MemoryLLMCache:
    def __init__(self) -> None:
        self.replies: dict[str, LLMReply] = {}

    def get(self, key: str) -> LLMReply | None:
        return self.replies.get(key)

    def put(self, key: str, request: dict[str, Any], reply: LLMReply) -> None:
        self.replies[key] = reply
