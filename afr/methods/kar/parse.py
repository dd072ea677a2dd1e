"""KAR K1: the entities a question names, parsed by the LLM into small documents.

The prompt (``afr/prompts/kar_parse.j2``) shows the SKB's *document structures* — each
node type with its most frequent attribute paths, read from the attribute catalogue
rather than written by hand — and asks for a JSON list of ``{"type", "attributes"}``
objects. LLM output is messy, so the reply is read leniently: code fences and reasoning
are cut off, single quotes and Python literals are accepted, objects may come one per line
without a list around them, and the paper's own shape ``{"author": {"name": …}}`` reads as
well. A type the schema does not know becomes "any type".
"""

from __future__ import annotations

import ast
import json
import re
from dataclasses import dataclass, field
from typing import Any

from afr.llm import LLMClient
from afr.llm.prompts import render_messages
from afr.store.base import Store
from afr.store.skb import SkbSchema
from afr.text import strip_reasoning

FIELDS_PER_TYPE = 6  # attribute paths shown per node type, besides the name
MAX_ENTITIES = 8  # a reply listing more is cut: each entity costs a search and a 2-hop walk
_FENCE = re.compile(r"```(?:\w+)?\s*(.*?)```", re.DOTALL)
_TYPE_KEYS = ("type", "entity_type", "document type", "document_type", "label", "kind")
_ATTR_KEYS = ("attributes", "attrs", "fields", "properties")


@dataclass
class DocumentStructure:
    """One node type as the prompts show it: its label and the fields its documents have."""

    node_type: str
    name: str
    fields: list[str]


@dataclass
class ParsedEntity:
    """An entity the question names: its node type (None: any) and the attribute values
    the question states; ``text`` is what gets embedded to link it."""

    node_type: str | None
    attributes: dict[str, str] = field(default_factory=dict)
    written_type: str | None = None  # the type as the LLM wrote it

    @property
    def text(self) -> str:
        # "<type>. <attr>: <value>; …": the shape of a node document's first lines.
        head = self.written_type or self.node_type or "entity"
        body = "; ".join(f"{k}: {v}" for k, v in self.attributes.items())
        return f"{head}. {body}" if body else head


def document_structures(store: Store, schema: SkbSchema,
                        per_type: int = FIELDS_PER_TYPE) -> list[DocumentStructure]:
    """Every node type with ``name`` and its ``per_type`` most frequent attribute paths."""
    paths: dict[str, list[str]] = {}
    for node_type, path in store.run("kar/structures.sql", {"per_type": per_type}):
        paths.setdefault(node_type, []).append(path)
    return [DocumentStructure(t.type, t.label, ["name", *paths.get(t.type, [])])
            for t in schema.node_types.values()]


def _objects(text: str) -> list[str]:
    """The top-level ``{…}`` spans of ``text`` (quotes respected)."""
    spans, depth, start, quote, escaped = [], 0, 0, "", False
    for i, ch in enumerate(text):
        if quote:
            if escaped:
                escaped = False
            elif ch == "\\":
                escaped = True
            elif ch == quote:
                quote = ""
            continue
        if ch in "\"'" and depth > 0:
            quote = ch
        elif ch == "{":
            if depth == 0:
                start = i
            depth += 1
        elif ch == "}" and depth > 0:
            depth -= 1
            if depth == 0:
                spans.append(text[start:i + 1])
    return spans


def _load(text: str) -> Any:
    """JSON, else a Python literal (single quotes, True/None), else None."""
    try:
        return json.loads(text)
    except ValueError:
        pass
    pythonic = re.sub(r"\btrue\b", "True", re.sub(r"\bfalse\b", "False",
                                                  re.sub(r"\bnull\b", "None", text)))
    try:
        return ast.literal_eval(pythonic)
    except (ValueError, SyntaxError, MemoryError, RecursionError):
        return None


def _value(value: Any) -> str:
    if isinstance(value, list):
        return ", ".join(_value(v) for v in value[:10])
    if isinstance(value, dict):
        return ", ".join(f"{k}: {_value(v)}" for k, v in list(value.items())[:10])
    return " ".join(str(value).split())[:300]


def _entity(obj: Any, schema: SkbSchema) -> ParsedEntity | None:
    if not isinstance(obj, dict) or not obj:
        return None
    written: str | None = next((str(obj[k]) for k in _TYPE_KEYS
                                if isinstance(obj.get(k), str)), None)
    attrs: Any = next((obj[k] for k in _ATTR_KEYS if isinstance(obj.get(k), dict)), None)
    if written is None and attrs is None and len(obj) == 1:
        # the paper's shape: {"author": {"name": "J. Smith"}}
        (key, inner), = obj.items()
        if isinstance(inner, dict):
            written, attrs = str(key), inner
    if attrs is None:  # flat: {"type": "author", "name": "J. Smith"}
        attrs = {k: v for k, v in obj.items() if k not in _TYPE_KEYS}
    values = {str(k): _value(v) for k, v in attrs.items()
              if v not in (None, "", [], {}) and _value(v)}
    if not values:
        return None
    return ParsedEntity(schema.node_type(written), values, written)


def parse_entities(reply: str, schema: SkbSchema) -> list[ParsedEntity]:
    """The entities of an LLM reply (at most ``MAX_ENTITIES``); [] when none can be read."""
    text = strip_reasoning(reply).strip()
    fenced = _FENCE.search(text)
    if fenced:
        text = fenced.group(1).strip()
    start, end = text.find("["), text.rfind("]")
    whole = _load(text[start:end + 1]) if 0 <= start < end else None
    # A list as a whole, else the objects one by one (one per line, or a broken list)
    items = whole if isinstance(whole, list) else [_load(span) for span in _objects(text)]
    out: list[ParsedEntity] = []
    seen: set[str] = set()
    for item in items:
        entity = _entity(item, schema)
        if entity is not None and entity.text not in seen:
            seen.add(entity.text)
            out.append(entity)
    return out[:MAX_ENTITIES]


def ask_entities(client: LLMClient, question: str, structures: list[DocumentStructure],
                 schema: SkbSchema, *, prompts_dir: str | None) -> tuple[list[ParsedEntity], str]:
    """K1: one LLM call; (entities, the reply's text)."""
    messages = render_messages("kar_parse", prompts_dir, question=question,
                               structures=[{"name": s.name, "fields": s.fields}
                                           for s in structures])
    reply = client.complete(messages)
    return parse_entities(reply.text, schema), reply.text
