"""Steps 1 and 2: the LLM names the answer type and writes the Cypher query."""

from __future__ import annotations

import re

from afr.llm import LLMClient
from afr.pipeline.prompts import render_messages
from afr.skb import SkbSchema
from afr.store.base import Store

_FENCE = re.compile(r"```(?:\w+)?\s*(.*?)```", re.DOTALL)


def clean_type_answer(reply: str, schema: SkbSchema) -> str | None:
    """The reply's node type, or None ("unknown"): quotes, brackets, lists cleaned off."""
    text = re.sub(r"<think>.*?</think>", "", reply, flags=re.DOTALL | re.IGNORECASE).strip()
    text = text.strip().strip("`'\"[](){}.").split(",")[0].split("\n")[0].strip().strip("`'\"")
    found = schema.node_type(text)
    if found:
        return found
    # A sentence around the name ("The answer is a disease."): take a known type inside it.
    for t in sorted(schema.node_types.values(), key=lambda t: -len(t.label)):
        for name in (t.label, t.type):
            if re.search(rf"(?<![\w]){re.escape(name)}(?![\w])", text, re.IGNORECASE):
                return t.type
    return None


def predict_target_type(client: LLMClient, question: str, schema: SkbSchema, *,
                        model: str | None, effort: str | None,
                        prompts_dir: str | None) -> tuple[str | None, str]:
    types = [{"name": t.label, "description": t.description}
             for t in schema.node_types.values() if t.is_candidate]
    messages = render_messages("target_type", prompts_dir, question=question, types=types)
    reply = client.complete(messages, model=model, reasoning_effort=effort)
    return clean_type_answer(reply.text, schema), reply.text


def name_examples(store: Store, per_type: int = 3) -> dict[str, list[str]]:
    out: dict[str, list[str]] = {}
    for node_type, name in store.run("offline/name_examples.sql", {"per_type": per_type}):
        out.setdefault(node_type, []).append(name)
    return out


def write_cypher(client: LLMClient, question: str, schema: SkbSchema, target_type: str | None,
                 examples: dict[str, list[str]], *, model: str | None, effort: str | None,
                 prompts_dir: str | None) -> str:
    labels = {t.type: t.label for t in schema.node_types.values()}
    node_labels = [{"name": t.label, "examples": examples.get(t.type, [])}
                   for t in schema.node_types.values()]
    relations = [{"label": e.label, "source": labels.get(e.source_type or ""),
                  "target": labels.get(e.target_type or "")}
                 for e in schema.edge_types.values()]
    messages = render_messages(
        "cypher", prompts_dir, question=question,
        target_type=labels.get(target_type or ""), node_labels=node_labels,
        relations=relations, directed=schema.directed,
    )
    reply = client.complete(messages, model=model, reasoning_effort=effort)
    text = reply.text
    fenced = _FENCE.search(text)
    return fenced.group(1).strip() if fenced else text.strip()
