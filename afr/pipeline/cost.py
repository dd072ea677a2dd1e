"""What one question costs in LLM calls, known before it is asked.

Most steps make one call; step 8 makes many: the pairwise reranker (the default) sorts the
k answers by binary insertion, one call per comparison — 54 to 69 calls at k = 20. Users
see the count before an eval starts (``afr eval``) and after an ask (``--explain``).
Retries of failed calls are not counted; calls answered from the cache cost nothing.

Step 8's prompts are also the bulk of the tokens: ``rerank_tokens`` estimates them before
an eval starts, from the descriptions of a sample of the SKB's nodes.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from afr.llm.prompts import render_messages
from afr.settings import Settings
from afr.store.base import Store
from afr.vectors.descriptions import describe
from afr.vectors.documents import RERANK_CAPS, build_documents


@dataclass(frozen=True)
class Calls:
    """The LLM calls of one step of one question: between ``low`` and ``high``."""

    step: str
    low: int
    high: int

    @property
    def text(self) -> str:
        return f"{self.low}" if self.low == self.high else f"{self.low}–{self.high}"


def rerank_calls(method: str, n: int) -> tuple[int, int]:
    """(fewest, most) calls of step 8 reranking ``n`` candidates with ``method``. Pairwise:
    inserting into a sorted list of length L takes floor(log2(L + 1)) to ceil(log2(L + 1))
    comparisons."""
    if method == "none" or n <= 1:
        return 0, 0
    if method == "listwise":
        return 1, 1
    if method == "pointwise":
        return n, n
    return (sum((size + 1).bit_length() - 1 for size in range(1, n)),
            sum(size.bit_length() for size in range(1, n)))


def llm_calls(settings: Settings, *, candidate_types: int, given_cypher: bool = False,
              candidates: int | None = None, method: str | None = None) -> tuple[Calls, ...]:
    """The LLM calls per question of ``method`` (default: the settings'), step by step.
    ``candidate_types``: the SKB's (step 1 asks only when there are several);
    ``given_cypher``: replayed queries replace steps 1–2; ``candidates``: the list step 8
    reranks (default: k)."""
    method = method or settings.ask.method
    out: list[Calls] = []
    if method in ("af", "af+sage"):
        if not given_cypher:
            out += [Calls("step 1", 1, 1)] if candidate_types > 1 else []
            out.append(Calls("step 2", 1, 1))
        if settings.af.repair is True or (settings.af.repair is None and not given_cypher):
            out.append(Calls("repair", 0, 1))
    elif method == "kar":
        out += [Calls("KAR K1", 1, 1), Calls("KAR K6", settings.kar.n, settings.kar.n)]
    reranker = settings.rerank.method
    low, high = rerank_calls(reranker, settings.ask.k if candidates is None else candidates)
    if high:
        out.append(Calls(f"step 8 ({reranker})", low, high))
    return tuple(out)


def total_calls(parts: Sequence[Calls]) -> Calls:
    return Calls("in all", sum(p.low for p in parts), sum(p.high for p in parts))


def describe_calls(parts: Sequence[Calls]) -> str:
    """``step 1: 1 · step 2: 1 · repair: 0–1 · step 8 (pairwise): 54–69 — 56–72 in all``."""
    if not parts:
        return "none"
    every = " · ".join(f"{p.step}: {p.text}" for p in parts)
    return every + (f" — {total_calls(parts).text} in all" if len(parts) > 1 else "")


# ---- step 8's tokens ---------------------------------------------------------------------

CHARS_PER_TOKEN = 4  # a rule of thumb for English text: the estimate, no tokenizer
SAMPLED_NODES = 50
_PER_PROMPT = {"listwise": None, "pairwise": 2, "pointwise": 1}  # None: all k candidates


@dataclass(frozen=True)
class RerankTokens:
    """Step 8's expected prompt tokens for one reranked list of ``k`` candidates, from
    the descriptions of ``sampled`` nodes of the candidate types (``description_chars``
    on average): between ``low`` and ``high`` as its call count varies."""

    reranker: str
    documents: str
    k: int
    low: int
    high: int
    description_chars: int
    sampled: int
    shown: int = 0  # descriptions per prompt

    @property
    def text(self) -> str:
        return f"{self.low:,}" if self.low == self.high else f"{self.low:,}–{self.high:,}"

    @property
    def prompts(self) -> str:
        """``1 prompt of 20 'focused' descriptions``, ``54–69 prompts of 2 …``."""
        calls = Calls("", *rerank_calls(self.reranker, self.k))
        return (f"{calls.text} prompt{'s' if calls.high > 1 else ''} of {self.shown} "
                f"'{self.documents}' description{'s' if self.shown > 1 else ''}")


def rerank_tokens(store: Store, settings: Settings, *, question_chars: int,
                  reranker: str | None = None, k: int | None = None) -> RerankTokens:
    """The prompt tokens step 8 is expected to send for one question: its prompts
    rendered from sampled descriptions (the settings' form, without a question's focus)
    and a question of ``question_chars`` characters, counted as characters / 4."""
    reranker = reranker or settings.rerank.method
    k = settings.ask.k if k is None else k
    docs = _sampled_descriptions(store, settings)
    mean = round(sum(map(len, docs)) / len(docs)) if docs else 0
    low, high = rerank_calls(reranker, k)
    if not high or not docs:
        return RerankTokens(reranker, settings.rerank.documents, k, 0, 0, mean, len(docs))
    shown = _PER_PROMPT.get(reranker) or k
    candidates = [{"id": i, "type": "", "text": docs[(i - 1) % len(docs)]}
                  for i in range(1, shown + 1)]
    variables = {"candidates": candidates} if reranker == "listwise" else \
        {"candidate": candidates[0]} if reranker == "pointwise" else \
        {"a": candidates[0], "b": candidates[1]}
    messages = render_messages(f"rerank_{reranker}", settings.prompts.dir,
                               question="x" * question_chars, **variables)
    per_call = sum(len(m["content"]) for m in messages) / CHARS_PER_TOKEN
    return RerankTokens(reranker, settings.rerank.documents, k, round(low * per_call),
                        round(high * per_call), mean, len(docs), shown)


def _sampled_descriptions(store: Store, settings: Settings) -> list[str]:
    """Step 8's descriptions of an even sample of the candidate types' nodes."""
    types = list(store.skb_schema().candidate_types)
    rows = store.run_tuples("docs/sample_nodes.sql", {"types": types, "n": SAMPLED_NODES}) \
        if types else []
    ids = [int(r[0]) for r in rows]
    caps = RERANK_CAPS[settings.rerank.documents]
    relations = settings.rerank.with_relations
    if caps.second_hops == "query":
        docs = describe(store, ids, caps, relations=relations)
    else:
        docs = build_documents(store, ids, "doc_rel" if relations else "doc", caps=caps)
    return [docs[i] for i in ids if i in docs]


def describe_tokens(tokens: RerankTokens, questions: int, per_question: int | None = None
                    ) -> str:
    """``rerank prompts per question: about 2,600 tokens (listwise: 1 prompt of 20
    'focused' descriptions, ~450 characters each in 50 sampled nodes; tokens estimated as
    characters / 4) — up to about 260,000 for 100 questions``. ``per_question``: the most
    per question when sweeps rerank more lists (default: this one's)."""
    most = tokens.high if per_question is None else per_question
    more = f"; with the sweeps' lists up to about {most:,}" if most != tokens.high else ""
    return (f"rerank prompts per question: about {tokens.text} tokens ({tokens.reranker}: "
            f"{tokens.prompts}, ~{tokens.description_chars:,} "
            f"characters each in {tokens.sampled} sampled nodes; tokens estimated as "
            f"characters / {CHARS_PER_TOKEN}){more} — up to about {most * questions:,} for "
            f"{questions:,} questions")
