"""What every method shares: the session it runs in, a question as asked, and what it
hands to the shared finish (step 8 and the run log, ``afr.pipeline``).

A method is a ``Retriever``: made once per session, it turns each ``Question`` into a
``Retrieved`` — the list before step 8 and the typed record of how it was found.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Protocol

from afr.embed import Embedder
from afr.llm import LLMClient, WaitBudget
from afr.llm.fallback import Fallback
from afr.retrieval.candidate import Candidate, Strands
from afr.retrieval.filters import AttributeCatalog
from afr.retrieval.linking import guess_target_type
from afr.retrieval.lists import answer_types
from afr.retrieval.timing import Timer
from afr.settings import Settings
from afr.store.base import Store
from afr.store.skb import SkbSchema
from afr.vectors.descriptions import NO_FOCUS, Focus


@dataclass(frozen=True)
class Question:
    """A question as asked: its text, and for replayed or hand-written queries the Cypher
    (and answer type) that replace steps 1–2."""

    text: str
    cypher: str | None = None
    target_type: str | None = None


@dataclass
class Session:
    """What every question of a session shares: store, schema, embedder, attribute
    catalogue, settings and the LLM client (None: offline)."""

    store: Store
    schema: SkbSchema
    embedder: Embedder
    catalog: AttributeCatalog
    settings: Settings
    llm: LLMClient | Any | None
    dense_from: str = "the settings"  # where settings.ranking.dense came from
    hybrid_dense_from: str = "the settings"  # where settings.ranking.hybrid_dense came from
    # read once per session, on first use (name examples of step 2, KAR's structures)
    memo: dict[str, Any] = field(default_factory=dict)
    _lock: threading.Lock = field(default_factory=threading.Lock, repr=False)

    def once(self, key: str, read: Callable[[], Any]) -> Any:
        with self._lock:
            if key not in self.memo:
                self.memo[key] = read()
            return self.memo[key]


class QuestionLLM:
    """The shared LLM client as one question sees it: the same calls, its own counters,
    and the question's own allowance for failing calls (``WaitBudget``): the client's
    totals mix in the calls of questions asked at the same time (afr eval --concurrency)."""

    def __init__(self, client: Any) -> None:
        self.client = client
        self.stats = client.stats
        self.calls = self.new_calls = self.tokens = self.new_tokens = 0
        # all calls' tokens, cached replies included, split as sent and received
        self.input_tokens = self.output_tokens = 0
        self._lock = threading.Lock()  # the pointwise/pairwise reranker calls from threads
        self.budget = WaitBudget.for_question(client.config.timeout_s) \
            if isinstance(client, LLMClient) else None

    def complete(self, messages: list[dict[str, Any]], **kwargs: Any) -> Any:
        if self.budget is not None:
            kwargs.setdefault("budget", self.budget)
        reply = self.client.complete(messages, **kwargs)
        used = (reply.prompt_tokens or 0) + (reply.completion_tokens or 0)
        with self._lock:
            self.calls += 1
            self.tokens += used
            self.input_tokens += reply.prompt_tokens or 0
            self.output_tokens += reply.completion_tokens or 0
            if not reply.cached:
                self.new_calls += 1
                self.new_tokens += used
        return reply


@dataclass
class Turn:
    """One question's own: its view of the LLM (None: offline) and its step timings."""

    llm: QuestionLLM | None
    timer: Timer = field(default_factory=lambda: Timer({}))


@dataclass(frozen=True)
class Retrieved:
    """What a method found for one question, before step 8."""

    candidates: tuple[Candidate, ...]
    target_type: str | None
    strands: Strands = Strands()
    notes: tuple[str, ...] = ()
    fallbacks: tuple[Fallback, ...] = ()
    # names the reranker's descriptions keep when they must shrink (the query's names)
    keep_names: frozenset[str] = frozenset()
    # what the reranker's focused descriptions state first (the query's relations, …)
    focus: Focus = NO_FOCUS
    # The methods' own records (typed by the methods, which sit above this module; the
    # result reads them typed: ``afr.pipeline.result``): ``afr.methods.af.trace.AfTrace``,
    # ``afr.methods.sage.expand.SageTrace``, ``afr.methods.kar.run.KarTrace``.
    af: Any = None
    sage: Any = None
    kar: Any = None


def answer_target(session: Session, question: Question) -> tuple[str | None, list[str]]:
    """The answer type of a method without Cypher — given, else guessed from the
    question's words — and the types its answers are searched among (all candidate
    types when there is none)."""
    target = question.target_type or guess_target_type(question.text, session.schema)
    return target, answer_types(target, session.schema)


class Retriever(Protocol):
    """A retrieval method, made once per session."""

    def retrieve(self, question: Question, turn: Turn) -> Retrieved: ...
