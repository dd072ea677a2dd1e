"""KAR K6: expand the question with what its knowledge-graph neighbourhood says.

With an LLM, the prompt (``afr/prompts/kar_expand.j2``) shows the document structures,
each document of the kept triples once (capped at ``doc_chars``), the triples by name,
and the question, and asks for the document that would answer it; ``n`` samples are
drawn at the configured temperature. The client has no ``n`` parameter, so the samples
are ``n`` calls that differ in their ``seed``: each is cached on its own in
``llm_calls``, so a rerun draws nothing new.

Offline (no LLM), the expansion is deterministic *graph pseudo-relevance feedback*: for
each kept triple, ``head <relation> tail`` in words and the first ``prf_chars``
characters of the tail's document.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from afr.llm import LLMClient
from afr.llm.prompts import render_messages
from afr.methods.kar.parse import DocumentStructure
from afr.text import strip_reasoning

# Documents and triples shown to the expansion call, in characters (about 10K tokens):
# beyond it, the lowest-scored triples (and documents only they use) are left out first.
PROMPT_CHARS = 40_000


@dataclass
class ExpansionContext:
    """What the expansion prompt shows: named documents and rendered triples, best first."""

    documents: list[tuple[str, str]]  # (name, document text)
    triples: list[str]


def fit_context(documents: dict[int, tuple[str, str]],
                triples: Sequence[tuple[str, Sequence[int]]],
                limit: int = PROMPT_CHARS) -> ExpansionContext:
    """Triples in order (``(rendered, node ids it names)``, best first) with their
    documents, each document once, as many triples as fit in ``limit`` characters."""
    shown: list[str] = []
    docs: list[tuple[str, str]] = []
    used: set[int] = set()
    size = 0
    for rendered, nodes in triples:
        new = [n for n in dict.fromkeys(nodes) if n not in used and n in documents]
        cost = len(rendered) + sum(len(documents[n][1]) + len(documents[n][0]) for n in new)
        if shown and size + cost > limit:
            break
        shown.append(rendered)
        docs += [documents[n] for n in new]
        used.update(new)
        size += cost
    return ExpansionContext(docs, shown)


def expand_with_llm(client: LLMClient, question: str, structures: list[DocumentStructure],
                    context: ExpansionContext, *, n: int, temperature: float,
                    prompts_dir: str | None) -> list[str]:
    """K6: ``n`` sampled documents answering the question (empty replies dropped)."""
    messages = render_messages(
        "kar_expand", prompts_dir, question=question,
        structures=[{"name": s.name, "fields": s.fields} for s in structures],
        documents=[{"name": name, "text": text} for name, text in context.documents],
        triples=context.triples)
    samples = []
    for seed in range(max(1, n)):
        reply = client.complete(messages, temperature=temperature, seed=seed)
        text = strip_reasoning(reply.text).strip()
        if text:
            samples.append(text)
    return samples


def graph_prf(lines: Sequence[tuple[str, str]], prf_chars: int) -> str:
    """The offline expansion: each ``(relation in words, tail document)`` as one line,
    the document cut to ``prf_chars`` characters."""
    out = []
    for relation, document in lines:
        snippet = " ".join(document.split())[:prf_chars]
        out.append(f"{relation}: {snippet}" if snippet else relation)
    return "\n".join(out)


def expanded_query(question: str, expansions: Sequence[str]) -> str:
    """q′ = q, then each expansion, newline-joined; q itself when there is none."""
    parts = [e.strip() for e in expansions if e and e.strip()]
    return "\n".join([question, *parts]) if parts else question
