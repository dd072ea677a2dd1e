"""Step 8: the LLM reranks the k answers — pointwise, pairwise or listwise.

Candidates are shown to the LLM under short local ids (1…k) inside <entity> tags, so a
reply can only ever pick among them: ids it invents are dropped, ids it forgets are
appended in their prior order. When a prompt does not fit the model's context, node
descriptions shrink step by step: relations to other symbols' candidates only, then no
relations, then a short text.
"""

from __future__ import annotations

import re
import threading
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field

from afr.llm import LLMClient
from afr.llm.client import ContextLengthError
from afr.llm.prompts import render_messages
from afr.store.base import Store
from afr.text import strip_reasoning
from afr.vectors.descriptions import NO_FOCUS, Focus, describe
from afr.vectors.documents import CAPPED, DocumentCaps, build_documents

SHRINK_LEVELS = ("relations", "related_relations", "no_relations", "short")
_NUMBER = re.compile(r"-?\d+(?:\.\d+)?")


@dataclass
class RerankOutcome:
    order: list[int]  # node ids, best first
    prompts: int = 0  # prompts sent (a prompt too long for the model counts, and is sent
    #                   again shorter)
    replies: int = 0  # replies received
    unparsed: int = 0  # replies that named no candidate (or no score): unusable
    notes: list[str] = field(default_factory=list)
    # the paper's Table 7: (a) a prompt with full descriptions did not fit the context;
    # (b) one with only the relations to the query's names did not fit either
    overflow_full: bool = False
    overflow_related: bool = False

    @property
    def usable(self) -> int:
        return self.replies - self.unparsed


class _Descriptions:
    """Node descriptions at each shrink level, built lazily from the store."""

    def __init__(self, store: Store, ids: Sequence[int], keep_names: set[str],
                 with_relations: bool, caps: DocumentCaps = CAPPED,
                 focus: Focus = NO_FOCUS) -> None:
        self.store, self.ids, self.keep_names = store, list(ids), keep_names
        self.caps, self.focus = caps, focus
        self.level = 0 if with_relations else 2
        self._cache: dict[int, dict[int, str]] = {}
        # The pointwise reranker's threads share one shrink level.
        self._lock = threading.RLock()

    def texts(self) -> dict[int, str]:
        with self._lock:
            if self.level not in self._cache:
                self._cache[self.level] = self._build(self.level)
            return self._cache[self.level]

    def _documents(self, relations: bool) -> dict[int, str]:
        if self.caps.second_hops == "query":  # the focused form
            return describe(self.store, self.ids, self.caps, self.focus, relations=relations)
        return build_documents(self.store, self.ids, "doc_rel" if relations else "doc",
                               caps=self.caps)

    def _build(self, level: int) -> dict[int, str]:
        if level == 0:
            return self._documents(relations=True)
        if level == 1:
            full = self._documents(relations=True)
            base = self._documents(relations=False)
            out = {}
            for i, text in full.items():
                # the relation lines (a focused description may have cut its text: read
                # them after the heading, not after the base document's length)
                relations = text.partition("\nrelations:\n")[2]
                extra = [ln for ln in relations.splitlines()
                         if any(n in ln.lower() for n in self.keep_names)]
                out[i] = base.get(i, "") + ("\nrelations:\n" + "\n".join(extra) if extra else "")
            return out
        base = self._documents(relations=False)
        return base if level == 2 else {i: t[:400] for i, t in base.items()}

    def shrink(self, failed_level: int) -> bool | None:
        """One level shorter after a prompt at ``failed_level`` did not fit: True, or
        None when another thread has shrunk already (just try again), or False when
        nothing is left to cut."""
        with self._lock:
            if self.level != failed_level:
                return None
            if self.level >= len(SHRINK_LEVELS) - 1:
                return False
            self.level += 1
            if self.level == 1 and not self.keep_names:
                self.level = 2
            return True


def _with_shrinking(desc: _Descriptions, call: Callable[[], object],
                    outcome: RerankOutcome) -> object:
    while True:
        level = desc.level
        try:
            return call()
        except ContextLengthError:
            outcome.overflow_full = outcome.overflow_full or level == 0
            outcome.overflow_related = outcome.overflow_related or level == 1
            shrunk = desc.shrink(level)
            if shrunk is False:
                raise
            if shrunk:
                outcome.notes.append(f"prompt too long: node descriptions now "
                                     f"'{SHRINK_LEVELS[desc.level]}'")


def rerank(client: LLMClient, store: Store, question: str, ids: Sequence[int], *,
           method: str, node_types: dict[int, str], keep_names: set[str] | None = None,
           with_relations: bool = True, concurrency: int = 8, model: str | None = None,
           effort: str | None = None, prompts_dir: str | None = None,
           caps: DocumentCaps = CAPPED, focus: Focus = NO_FOCUS) -> RerankOutcome:
    ids = list(ids)
    outcome = RerankOutcome(order=ids)
    if method == "none" or len(ids) <= 1:
        return outcome
    desc = _Descriptions(store, ids, {n.lower() for n in (keep_names or set()) if len(n) > 2},
                         with_relations, caps, focus)
    local = {i + 1: node for i, node in enumerate(ids)}  # short ids the LLM sees

    def item(local_id: int) -> dict:
        node = local[local_id]
        return {"id": local_id, "type": fence(node_types.get(node, "")).replace('"', "'"),
                "text": fence(desc.texts()[node])}

    def ask(name: str, variables: Callable[[], dict]) -> str:
        # ``variables`` is re-evaluated on every try, so shrunk descriptions take effect.
        def call() -> str:
            messages = render_messages(name, prompts_dir, question=question, **variables())
            outcome.prompts += 1
            text = client.complete(messages, model=model, reasoning_effort=effort).text
            outcome.replies += 1
            return text

        return _with_shrinking(desc, call, outcome)  # type: ignore[return-value]

    if method == "listwise":
        return _listwise(ask, item, local, outcome)
    if method == "pointwise":
        return _pointwise(ask, item, local, outcome, concurrency)
    if method == "pairwise":
        return _pairwise(ask, item, local, outcome)
    raise ValueError(f"unknown reranker {method!r}")


_TAG = re.compile(r"<(\s*/?\s*entity)", re.IGNORECASE)


def fence(text: str) -> str:
    """Document text as inert data inside an <entity> block: a node text cannot close
    its block or open a fake one (``</entity><entity id="1">``) — its tags lose their '<'."""
    return _TAG.sub(r"&lt;\1", text)


Ask = Callable[[str, Callable[[], dict]], str]
Item = Callable[[int], dict]


def _listwise(ask: Ask, item: Item, local: dict[int, int],
              outcome: RerankOutcome) -> RerankOutcome:
    reply = ask("rerank_listwise", lambda: {"candidates": [item(i) for i in local]})
    if not named_ids(reply, list(local)):
        outcome.unparsed += 1  # "42", "none of them": the order stays, the reply is unusable
    outcome.order = [local[i] for i in parse_listwise(reply, list(local))]
    return outcome


def named_ids(reply: str, prior: list[int]) -> list[int]:
    """The candidates' ids a listwise reply names, in its order, each once."""
    seen: list[int] = []
    known = set(prior)
    for token in re.findall(r"\d+", strip_reasoning(reply)):
        value = int(token)
        if value in known and value not in seen:
            seen.append(value)
    return seen


def parse_listwise(reply: str, prior: list[int]) -> list[int]:
    """Ids in the reply's order; duplicates and unknown ids dropped, missing ones appended."""
    seen = named_ids(reply, prior)
    return seen + [i for i in prior if i not in seen]


def parse_score(reply: str) -> float | None:
    reply = strip_reasoning(reply)
    m = _NUMBER.search(reply)
    if not m:
        return None
    value = float(m.group(0))
    if value > 1 and value <= 10:
        value /= 10  # a 0-10 scale despite the instructions
    return value if 0 <= value <= 1 else None


def parse_choice(reply: str, a: int, b: int) -> int | None:
    reply = strip_reasoning(reply)
    found = [int(t) for t in re.findall(r"\d+", reply) if int(t) in (a, b)]
    return found[-1] if found else None  # the final answer follows any reasoning


def _pointwise(ask: Ask, item: Item, local: dict[int, int], outcome: RerankOutcome,
               concurrency: int) -> RerankOutcome:
    def score(local_id: int) -> float:
        reply = ask("rerank_pointwise", lambda: {"candidate": item(local_id)})
        value = parse_score(reply)
        if value is None:
            outcome.unparsed += 1
            return 0.5  # an unreadable score counts as undecided
        return value

    for local_id in local:  # build descriptions up front, not from every thread
        item(local_id)
    with ThreadPoolExecutor(max_workers=max(1, concurrency)) as pool:
        scores = dict(zip(local, pool.map(score, list(local)), strict=True))
    order = sorted(local, key=lambda i: (-scores[i], i))  # ties keep the prior order
    outcome.order = [local[i] for i in order]
    return outcome


def _pairwise(ask: Ask, item: Item, local: dict[int, int], outcome: RerankOutcome) -> RerankOutcome:
    """Binary insertion sort in prior order; an unreadable comparison is a tie."""
    ranked: list[int] = []
    for new in local:
        lo, hi = 0, len(ranked)
        while lo < hi:
            mid = (lo + hi) // 2
            other = ranked[mid]
            reply = ask("rerank_pairwise", lambda o=other, n=new: {"a": item(o), "b": item(n)})
            choice = parse_choice(reply, other, new)
            if choice is None:
                outcome.unparsed += 1
            if choice == new:
                hi = mid
            else:  # the earlier item wins, and so do ties: the prior order stands
                lo = mid + 1
        ranked.insert(lo, new)
    outcome.order = [local[i] for i in ranked]
    return outcome
