"""Step 2: the LLM writes a Cypher query for the question over the SKB's schema."""

from __future__ import annotations

import re

from afr.cypher.extract import has_query
from afr.llm import LLMClient, UnusableReplyError
from afr.llm.prompts import render_messages
from afr.store.base import Store
from afr.store.skb import SkbSchema
from afr.text import gist

_FENCE = re.compile(r"```(?:\w+)?\s*(.*?)```", re.DOTALL)


def name_examples(store: Store, per_type: int = 3) -> dict[str, list[str]]:
    out: dict[str, list[str]] = {}
    for node_type, name in store.run("offline/name_examples.sql", {"per_type": per_type}):
        out.setdefault(node_type, []).append(name)
    return out


def schema_context(schema: SkbSchema, target_type: str | None,
                   examples: dict[str, list[str]]) -> dict[str, object]:
    """What a Cypher-writing prompt shows of the SKB: the target's label, node labels with
    example names, and relations with their end labels (step 2 and the repair round)."""
    labels = {t.type: t.label for t in schema.node_types.values()}
    return {
        "target_type": labels.get(target_type or ""),
        "node_labels": [{"name": t.label, "examples": examples.get(t.type, [])}
                        for t in schema.node_types.values()],
        "relations": [{"label": e.label, "source": labels.get(e.source_type or ""),
                       "target": labels.get(e.target_type or "")}
                      for e in schema.edge_types.values()],
    }


def write_cypher(client: LLMClient, question: str, schema: SkbSchema, target_type: str | None,
                 examples: dict[str, list[str]], *, model: str | None, effort: str | None,
                 prompts_dir: str | None) -> str:
    messages = render_messages("cypher", prompts_dir, question=question,
                               directed=schema.directed,
                               **schema_context(schema, target_type, examples))
    reply = client.complete(messages, model=model, reasoning_effort=effort)
    text = reply.text
    if not has_query(text):
        raise UnusableReplyError(f"the Cypher reply holds no query: {gist(text)}")
    fenced = _FENCE.search(text)
    return fenced.group(1).strip() if fenced else text.strip()
