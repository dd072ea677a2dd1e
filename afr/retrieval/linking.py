"""Entity linking without an LLM: node names and aliases that appear literally in a
question, and the answer type read from the type names it mentions.

Shared by the methods that need the question's entities without an LLM: the AF
offline formalizer (``afr.methods.af.offline``) writes Cypher around them, KAR links
them instead of parsing them with an LLM, and the plain methods guess the answer type.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from afr.store.base import Store
from afr.store.skb import SkbSchema

MAX_GRAM = 12  # words of the longest name linked: paper titles run past six (MAG's did)
MAX_ENTITIES = 3
HEAD_WORDS = 5  # where a question names the kind of answer it asks for
# Links less sure than this are not made: a short, ordinary word that names many nodes
# ("call", "made") says nothing about which node the question means.
MIN_LINK_CONFIDENCE = 0.4
STOPWORDS = frozenset(
    ["a", "an", "and", "any", "are", "as", "at", "be", "been", "by", "can", "could", "do", "does", "for", "from", "had", "has", "have", "how", "i", "if", "in", "into", "is", "it", "its", "may", "more", "most", "much", "not", "of", "on", "one", "or", "other", "some", "such", "than", "that", "the", "their", "them", "then", "there", "these", "they", "this", "those", "to", "was", "were", "what", "when", "where", "which", "who", "whom", "whose", "why", "will", "with", "would", "all", "also", "about", "after", "before", "between", "both", "each", "few", "many", "only", "own", "same", "so", "very", "just", "over", "under", "like", "name", "names", "named", "called", "type", "types", "list", "give", "find", "show", "tell", "me", "us", "our", "you", "your", "he", "she", "his", "her", "we"]
)
_TOKEN = re.compile(r"[\w][\w.'’/+\-]*[\w]|\w", re.UNICODE)
_QUOTED = re.compile(r"[\"“”']([^\"“”']{2,80})[\"“”']")


@dataclass
class LinkedEntity:
    node_id: int
    node_type: str
    name: str
    mention: str
    span: tuple[int, int]
    confidence: float = 1.0  # how sure the link is (see _link_confidence)
    # an ordinary phrase: neither written as a name nor typed by the question ("sponge
    # cake" against "the Alps", "the calendar module")
    ordinary: bool = False


_LINK_CHARS = 20_000


def tokens(question: str) -> list[tuple[str, int, int]]:
    return [(m.group(0).strip(".'’"), m.start(), m.end()) for m in _TOKEN.finditer(question)]


def _grams(question: str) -> dict[str, tuple[int, int]]:
    toks = tokens(question)
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


# Words after which a type word names the answers ("which verbs …"), not a mention.
_ASKING = frozenset(["which", "what", "whose", "many"])


def _hit_score(question: str, span: tuple[int, int], name: str, node_type: str,
               type_words: dict[str, str]) -> int:
    """Prefer the reading the question supports: "the calendar module" → the module. A
    type word that names the answers (after an ``_ASKING`` word, or opening the question)
    types nothing after it: in "which verbs describe …" and "which adjectives close in
    meaning to …" the next word is the question's own."""
    score = 0
    preceding = question[:span[0]].lower().split()
    before = preceding[-1:] or [""]
    if len(preceding) < 2 or preceding[-2].strip(".,;:?!") in _ASKING:
        before = [""]
    after = question[span[1]:].lower().split()[:1] or [""]
    for word in (before[0], after[0]):
        if type_words.get(word.strip(".,;:?!")) == node_type:
            score += 2
    if name and name in question:  # same capitalisation as written
        score += 1
    return score


def _link_confidence(question: str, span: tuple[int, int],
                     hits: list[tuple[int, str, str]], type_words: dict[str, str]) -> float:
    """How sure a link is. A mention of several content words, one written as a name
    rather than an ordinary word, one naming a single node, and one the question itself
    types (a type word next to it: "the calendar module") each add to it; a short
    ordinary word alone ("call", "made") stays below ``MIN_LINK_CONFIDENCE``."""
    mention = question[span[0]:span[1]]
    content = [w for w, _, _ in tokens(mention) if w.lower() not in STOPWORDS]
    score = 0.4 if len(content) >= 2 else 0.2
    score += 0.3 if _written_as_name(question, span) else 0.0
    score += 0.15 if len({h[0] for h in hits}) == 1 else 0.0
    score += 0.3 if _typed(question, span, hits, type_words) else 0.0
    return min(score, 1.0)


def _typed(question: str, span: tuple[int, int], hits: list[tuple[int, str, str]],
           type_words: dict[str, str]) -> bool:
    """A type word next to the mention names its node's type ("the calendar module")."""
    return _hit_score(question, span, hits[0][2], hits[0][1], type_words) >= 2


def _written_as_name(question: str, span: tuple[int, int]) -> bool:
    """The question writes the mention as a name: quoted, capitalised where a sentence
    does not start, or shaped like an identifier (digits, _, ., inner capitals)."""
    mention = question[span[0]:span[1]]
    before = question[:span[0]].rstrip()
    quoted = before[-1:] in ("'", '"', "“", "`")
    starts_sentence = not before or before[-1] in ".?!"
    capitalised = any(c.isupper() for c in (mention if not starts_sentence
                                            else mention[1:]))
    identifier = any(c.isdigit() or c in "_." for c in mention)
    return quoted or capitalised or identifier


def link_entities(store: Store, question: str, exclude_words: set[str],
                  type_words: dict[str, str] | None = None) -> list[LinkedEntity]:
    # Entity names sit in a question's first sentences; a pasted megabyte would only cost
    # seconds of n-grams (spans stay valid: the prefix keeps its offsets).
    grams = {g: span for g, span in _grams(question[:_LINK_CHARS]).items()
             if g not in exclude_words}
    if not grams:
        return []
    by_mention = nodes_named(store, list(grams))
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
        confidence = _link_confidence(question, (start, end), hits, type_words or {})
        if confidence < MIN_LINK_CONFIDENCE:
            continue  # an ordinary word that happens to name a node: no evidence
        ordinary = not (_written_as_name(question, (start, end))
                        or _typed(question, (start, end), hits, type_words or {}))
        found.append(LinkedEntity(node_id, node_type, name, mention, (start, end),
                                  confidence, ordinary))
        if len(found) >= MAX_ENTITIES:
            break
    return sorted(found, key=lambda e: e.span[0])


def nodes_named(store: Store, grams: list[str]) -> dict[str, list[tuple[int, str, str]]]:
    """The nodes whose name or alias equals one of ``grams`` (lower case): gram → (node
    id, node type, name)."""
    rows = store.run("offline/link_names.sql", {"grams": grams})
    named: dict[str, list[tuple[int, str, str]]] = {}
    for node_id, node_type, matched, name in rows:
        named.setdefault(matched, []).append((int(node_id), node_type, name or matched))
    return named


def name_words(name: str) -> set[str]:
    """The words of a type's, label's or attribute's name, stopwords aside."""
    return {p for p in re.split(r"[_\s/\-]+", name.lower()) if p and p not in STOPWORDS}


def label_words(schema: SkbSchema, edge_type: str) -> set[str]:
    """An edge type's own words: its label's, the names of the types it joins aside
    ("adjective_concept_is_similar_to_adjective_concept": similar)."""
    e = schema.edge_types[edge_type]
    ends = {p for t in (e.source_type, e.target_type) if t is not None
            for p in name_words(t) | name_words(schema.node_types[t].label)}
    return name_words(e.label) - ends


def type_words(schema: SkbSchema) -> dict[str, str]:
    """Words naming each node type (type, label, simple plurals) → type, and the parts of
    those names that name one type only ("verb" of verb_concept, "gene" of gene/protein)."""
    words: dict[str, str] = {}
    for t in schema.node_types.values():
        for base in {t.type, t.label}:
            for form in _forms(base):
                words.setdefault(form, t.type)
    for part, node_type in _name_parts(schema).items():
        for form in _forms(part):
            words.setdefault(form, node_type)
    return words


def _name_parts(schema: SkbSchema) -> dict[str, str]:
    """The words of the node types' names that belong to one type only (not "concept"
    when four types are concepts), at least three letters, no stopwords."""
    owners: dict[str, set[str]] = {}
    for t in schema.node_types.values():
        for base in {t.type, t.label}:
            for part in re.split(r"[_/\-\s]+", base.lower()):
                if len(part) >= 3 and part not in STOPWORDS:
                    owners.setdefault(part, set()).add(t.type)
    return {part: next(iter(types)) for part, types in owners.items() if len(types) == 1}


def _forms(name: str) -> set[str]:
    base = re.sub(r"[_/\-]+", " ", name.lower()).strip()
    forms = {base, base + "s", base + "es"}
    if base.endswith("y"):
        forms.add(base[:-1] + "ies")
    if base.endswith("s"):
        forms.add(base + "es")
    return forms


def guess_target_type(question: str, schema: SkbSchema) -> str | None:
    """The answer type a question names: the first mention of a candidate type's name
    ("which exceptions …"), or of a word only one type's name has ("which verb …" →
    verb_concept) among the question's first words, where questions name what they ask
    for; None when it names none."""
    candidates = schema.candidate_types
    if len(candidates) == 1:
        return candidates[0]
    text = question.lower()
    whole = {form: t for t in candidates for base in {t, schema.node_types[t].label}
             for form in _forms(base)}
    parts = {form: t for part, t in _name_parts(schema).items() if t in candidates
             for form in _forms(part)}
    head = " ".join(text.split()[:HEAD_WORDS])
    found = [m for m in (_first_mention(text, whole), _first_mention(head, parts)) if m]
    return min(found)[1] if found else None


def _first_mention(text: str, words: dict[str, str]) -> tuple[int, str] | None:
    """(position, type) of the earliest of ``words`` in ``text``."""
    best: tuple[int, str] | None = None
    for form, node_type in words.items():
        m = re.search(rf"\b{re.escape(form)}\b", text)
        if m and (best is None or m.start() < best[0]):
            best = (m.start(), node_type)
    return best


def named_entities(store: Store, question: str, schema: SkbSchema) -> list[LinkedEntity]:
    """The entities a question names (type words excluded: "module" is no entity)."""
    words = type_words(schema)
    return link_entities(store, question, set(words), words)
