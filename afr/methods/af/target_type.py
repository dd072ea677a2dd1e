"""Step 1: the LLM names the answer type."""

from __future__ import annotations

import re

from afr.llm import LLMClient
from afr.llm.prompts import render_messages
from afr.store.skb import SkbSchema
from afr.text import strip_reasoning


def clean_type_answer(reply: str, schema: SkbSchema) -> str | None:
    """The reply's node type, or None ("unknown"): quotes, brackets, lists cleaned off."""
    text = strip_reasoning(reply).strip()
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
