"""The offline formalizer: target type and Cypher without an LLM.

Used when no LLM is configured (and clearly labelled so). It links node names and
aliases that appear literally in the question, reads the answer type from the type
names the question mentions, joins each linked entity to the target through the schema's
edge types (one hop, else two), and turns phrases such as "more than 5 parameters" or
"after 2015" into attribute conditions. The result is ordinary Cypher, so the rest of
the pipeline runs unchanged.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from afr.pipeline.filters import AttributeCatalog
from afr.store.base import Store
from afr.store.skb import SkbSchema

MAX_GRAM = 6
MAX_ENTITIES = 3
STOPWORDS = frozenset(
    ["a", "an", "and", "any", "are", "as", "at", "be", "been", "by", "can", "could", "do", "does", "for", "from", "had", "has", "have", "how", "i", "if", "in", "into", "is", "it", "its", "may", "more", "most", "much", "not", "of", "on", "one", "or", "other", "some", "such", "than", "that", "the", "their", "them", "then", "there", "these", "they", "this", "those", "to", "was", "were", "what", "when", "where", "which", "who", "whom", "whose", "why", "will", "with", "would", "all", "also", "about", "after", "before", "between", "both", "each", "few", "many", "only", "own", "same", "so", "very", "just", "over", "under", "like", "name", "names", "named", "called", "type", "types", "list", "give", "find", "show", "tell", "me", "us", "our", "you", "your", "he", "she", "his", "her", "we"]
)
_TOKEN = re.compile(r"[\w][\w.'’/+\-]*[\w]|\w", re.UNICODE)
_QUOTED = re.compile(r"[\"“”']([^\"“”']{2,80})[\"“”']")
_COMPARE = re.compile(
    r"\b(more than|greater than|over|above|at least|fewer than|less than|under|below|"
    r"at most|exactly|after|since|before|until|in)\s+(-?\d+(?:\.\d+)?)(?:\s+([a-z][\w\-]*))?",
    re.IGNORECASE,
)
_OPS = {"more than": ">", "greater than": ">", "over": ">", "above": ">", "at least": ">=",
        "fewer than": "<", "less than": "<", "under": "<", "below": "<", "at most": "<=",
        "exactly": "=", "after": ">", "since": ">=", "before": "<", "until": "<=", "in": "="}


@dataclass
class LinkedEntity:
    node_id: int
    node_type: str
    name: str
    mention: str
    span: tuple[int, int]
    confidence: float = 1.0  # how sure the link is (see _link_confidence)


@dataclass
class OfflineFormalization:
    target_type: str | None
    cypher: str
    entities: list[LinkedEntity] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    # Linking confidence in [0, 1]: the mean of the linked entities' (0 without any). The
    # hybrid ranking trusts the Cypher this much (afr.pipeline.hybrid_ranking).
    confidence: float = 0.0


_LINK_CHARS = 20_000


def _tokens(question: str) -> list[tuple[str, int, int]]:
    return [(m.group(0).strip(".'’"), m.start(), m.end()) for m in _TOKEN.finditer(question)]


def _grams(question: str) -> dict[str, tuple[int, int]]:
    toks = _tokens(question)
    grams: dict[str, tuple[int, int]] = {}
    for i in range(len(toks)):
        for n in range(1, MAX_GRAM + 1):
            if i + n > len(toks):
                break
            words = [t[0] for t in toks[i:i + n]]
            text = question[toks[i][1]:toks[i + n - 1][2]].strip(".'’,;:?!")
            if n == 1 and (words[0].lower() in STOPWORDS or len(words[0]) < 2):
                continue
            for variant in {text.lower(), " ".join(words).lower(),
                            re.sub(r"['’]s$", "", text.lower())}:
                grams.setdefault(variant, (toks[i][1], toks[i + n - 1][2]))
    for m in _QUOTED.finditer(question):
        grams.setdefault(m.group(1).lower(), (m.start(1), m.end(1)))
    return grams


def _hit_score(question: str, span: tuple[int, int], name: str, node_type: str,
               type_words: dict[str, str]) -> int:
    """Prefer the reading the question supports: "the calendar module" → the module."""
    score = 0
    before = question[:span[0]].lower().split()[-1:] or [""]
    after = question[span[1]:].lower().split()[:1] or [""]
    for word in (before[0], after[0]):
        if type_words.get(word.strip(".,;:?!")) == node_type:
            score += 2
    if name and name in question:  # same capitalisation as written
        score += 1
    return score


def _link_confidence(question: str, span: tuple[int, int],
                     hits: list[tuple[int, str, str]], type_words: dict[str, str]) -> float:
    """How sure a link is: a longer mention, one node only, and the question's own
    support (type word next to it, same capitalisation) each add to it."""
    mention = question[span[0]:span[1]]
    score = 0.4 if " " in mention.strip() or len(mention) >= 8 else 0.2
    score += 0.3 if len({h[0] for h in hits}) == 1 else 0.0
    score += 0.15 * min(_hit_score(question, span, hits[0][2], hits[0][1], type_words), 2)
    return min(score, 1.0)


def link_entities(store: Store, question: str, exclude_words: set[str],
                  type_words: dict[str, str] | None = None) -> list[LinkedEntity]:
    # Entity names sit in a question's first sentences; a pasted megabyte would only cost
    # seconds of n-grams (spans stay valid: the prefix keeps its offsets).
    grams = {g: span for g, span in _grams(question[:_LINK_CHARS]).items()
             if g not in exclude_words}
    if not grams:
        return []
    rows = store.run("offline/link_names.sql", {"grams": list(grams)})
    by_mention: dict[str, list[tuple[int, str, str]]] = {}
    for node_id, node_type, matched, name in rows:
        by_mention.setdefault(matched, []).append((int(node_id), node_type, name or matched))
    found: list[LinkedEntity] = []
    # Longest mentions first; a mention inside a longer one is the same entity's words.
    for mention in sorted(by_mention, key=lambda m: (-len(m), grams[m][0])):
        start, end = grams[mention]
        if any(start >= e.span[0] and end <= e.span[1] for e in found):
            continue
        written = question[start:end]
        candidates = by_mention[mention]
        if " " not in mention and written.isalpha():
            # A single plain word must be written as the node writes it: "base" in
            # "base class" is not the class Base, but "calendar" is the module calendar.
            candidates = [h for h in candidates if h[2] == written]
            if not candidates:
                continue
        hits = sorted(candidates, key=lambda h: (
            -_hit_score(question, (start, end), h[2], h[1], type_words or {}), h[0]))
        node_id, node_type, name = hits[0]
        found.append(LinkedEntity(node_id, node_type, name, mention, (start, end),
                                  _link_confidence(question, (start, end), hits,
                                                   type_words or {})))
        if len(found) >= MAX_ENTITIES:
            break
    return sorted(found, key=lambda e: e.span[0])


def _type_words(schema: SkbSchema) -> dict[str, str]:
    """Words naming each node type (type, label, simple plurals) → type."""
    words: dict[str, str] = {}
    for t in schema.node_types.values():
        for base in {t.type, t.label}:
            for form in _forms(base):
                words.setdefault(form, t.type)
    return words


def _forms(name: str) -> set[str]:
    base = re.sub(r"[_/\-]+", " ", name.lower()).strip()
    forms = {base, base + "s", base + "es"}
    if base.endswith("y"):
        forms.add(base[:-1] + "ies")
    if base.endswith("s"):
        forms.add(base + "es")
    return forms


def guess_target_type(question: str, schema: SkbSchema) -> str | None:
    candidates = schema.candidate_types
    if len(candidates) == 1:
        return candidates[0]
    words = _type_words(schema)
    text = question.lower()
    best: tuple[int, str] | None = None
    for form, node_type in words.items():
        if node_type not in candidates:
            continue
        m = re.search(rf"\b{re.escape(form)}\b", text)
        if m and (best is None or m.start() < best[0]):
            best = (m.start(), node_type)
    return best[1] if best else None


def _label_overlap(label: str, question_words: set[str]) -> int:
    parts = {p for p in re.split(r"[_\s/\-]+", label.lower()) if p and p not in STOPWORDS}
    stems = {p[:5] for p in parts}
    return sum(1 for w in question_words if w[:5] in stems)


def _edge_choices(schema: SkbSchema, a: str, b: str) -> list[tuple[str, bool]]:
    """Edge types joining node types a and b: (edge type, stored as a→b)."""
    out = []
    for e in schema.edge_types.values():
        if e.source_type == a and e.target_type == b:
            out.append((e.type, True))
        elif e.source_type == b and e.target_type == a:
            out.append((e.type, False))
    return out


def _quote(name: str) -> str:
    return '"' + name.replace("\\", "\\\\").replace('"', '\\"') + '"'


def _label(name: str) -> str:
    return "`" + name.replace("`", "") + "`"


def _pattern(schema: SkbSchema, edge_type: str, forward: bool, left: str, right: str) -> str:
    """(left)-[:e]-(right) in the direction the edge is stored, if the edge type is directed.

    A relation between nodes of one type (inherits from, imports) has no arrow: the types
    cannot tell which end the question asks for ("the base class of X" vs "subclasses
    of X"), and a wrong arrow would find nothing."""
    e = schema.edge_types[edge_type]
    label = _label(e.label)
    if not schema.edge_directed(edge_type) or e.source_type == e.target_type:
        return f"{left}-[:{label}]-{right}"
    return f"{left}-[:{label}]->{right}" if forward else f"{left}<-[:{label}]-{right}"


def _conditions(question: str, target_type: str | None, catalog: AttributeCatalog) -> list[str]:
    if target_type is None:
        return []
    out = []
    for m in _COMPARE.finditer(question):
        phrase, number, hint = m.group(1).lower(), m.group(2), (m.group(3) or "").lower()
        found = None
        if hint:
            for cand in (hint, hint.rstrip("s"), f"num_{hint}", f"number_of_{hint}"):
                hit = catalog.lookup(target_type, cand)
                if hit and hit[1] in ("number", "date"):
                    found = hit
                    break
        if found is None and len(number) == 4 and phrase in ("after", "since", "before",
                                                             "until", "in"):
            for cand in ("year", "date", "published", "release_date", "added_in_release_date"):
                hit = catalog.lookup(target_type, cand)
                if hit and hit[1] in ("number", "date"):
                    found = hit
                    break
        if found is None:
            continue
        path, value_type = found
        op = _OPS[phrase]
        if value_type == "date" and len(number) == 4:
            # A year against a date attribute: compare with the year's first/last day.
            value = f"'{number}-01-01'" if op in (">=", "<", "=") else f"'{number}-12-31'"
            if op == "=":
                out.append(f"y.{path} >= '{number}-01-01' AND y.{path} <= '{number}-12-31'")
                continue
        else:
            value = number
        out.append(f"y.{path} {op} {value}")
    return out


def formalize(store: Store, question: str, schema: SkbSchema,
              catalog: AttributeCatalog) -> OfflineFormalization:
    target_type = guess_target_type(question, schema)
    exclude = set(_type_words(schema))
    entities = link_entities(store, question, exclude, _type_words(schema))
    notes: list[str] = []
    qwords = {w.lower() for w, _, _ in _tokens(question) if w.lower() not in STOPWORDS}
    target = f"(y:{_label(schema.node_types[target_type].label)})" if target_type else "(y)"
    patterns: list[str] = []
    # An entity adjacent to another linked entity qualifies that entity, not the answer.
    qualifies: dict[int, tuple[int, str, bool]] = {}
    if len(entities) > 1:
        index = {e.node_id: i for i, e in enumerate(entities, 1)}
        for src, etype, dst in store.run("offline/entity_edges.sql",
                                         {"ids": list(index)}):
            a, b = index[int(src)], index[int(dst)]
            if a == b:
                continue
            # The later mention qualifies the earlier one ("X in the Y module").
            first, second = min(a, b), max(a, b)
            if second not in qualifies:
                qualifies[second] = (first, etype, a == first)
    for i, ent in enumerate(entities, 1):
        const = f"(c{i}:{_label(schema.node_types[ent.node_type].label)} {{name: {_quote(ent.name)}}})"
        if i in qualifies:
            other, etype, forward = qualifies[i]
            other_ent = entities[other - 1]
            anchor = f"(c{other}:{_label(schema.node_types[other_ent.node_type].label)})"
            patterns.append(_pattern(schema, etype, forward, anchor, const))
            notes.append(f"{ent.name!r} qualifies {other_ent.name!r} (they are adjacent)")
            continue
        if target_type is None:
            patterns.append(f"{target}--{const}")
            continue
        direct = _edge_choices(schema, target_type, ent.node_type)
        if direct:
            edge, forward = max(direct, key=lambda c: _label_overlap(
                schema.edge_types[c[0]].label, qwords))
            patterns.append(_pattern(schema, edge, forward, target, const))
            continue
        two_hop = [
            (mid, e1, f1, e2, f2)
            for mid in schema.node_types
            for e1, f1 in _edge_choices(schema, target_type, mid)
            for e2, f2 in _edge_choices(schema, mid, ent.node_type)
        ]
        if two_hop:
            mid, e1, f1, e2, f2 = max(two_hop, key=lambda c: _label_overlap(
                schema.edge_types[c[1]].label + " " + schema.edge_types[c[3]].label, qwords))
            m = f"(m{i}:{_label(schema.node_types[mid].label)})"
            patterns.append(_pattern(schema, e1, f1, target, m))
            patterns.append(_pattern(schema, e2, f2, m, const))
        else:
            notes.append(f"no schema path between {target_type} and {ent.node_type} "
                         f"({ent.name}): linked as any relation")
            patterns.append(f"{target}--{const}")
    conditions = _conditions(question, target_type, catalog)
    if not patterns:
        patterns = [target]
        notes.append("no node name of the SKB appears in the question: vector search only")
    cypher = "MATCH " + ",\n      ".join(patterns)
    if conditions:
        cypher += "\nWHERE " + " AND ".join(conditions)
    cypher += "\nRETURN y"
    confidence = sum(e.confidence for e in entities) / len(entities) if entities else 0.0
    return OfflineFormalization(target_type, cypher, entities, notes, confidence)
