"""The offline formalizer: target type and Cypher without an LLM (AF's steps 1–2).

Used when no LLM is configured (and clearly labelled so), and when the LLM fails. It links
node names and aliases that appear literally in the question (``afr.retrieval.linking``),
reads the answer type from the type names the question mentions, joins each linked entity
to the target through the schema's edge types (one hop, else two), and turns phrases such
as "more than 5 parameters" or "after 2015" into attribute conditions. The result is
ordinary Cypher, so the rest of the method runs unchanged.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from afr.methods.af.asked_class import HIERARCHY_HOPS, AskedClass, asked_class
from afr.methods.af.relation_link import RelationLink, relation_links
from afr.retrieval.filters import AttributeCatalog
from afr.retrieval.linking import (
    STOPWORDS,
    LinkedEntity,
    guess_target_type,
    label_words,
    link_entities,
    name_words,
    tokens,
    type_words,
)
from afr.store.base import Store
from afr.store.skb import SkbSchema

_COMPARE = re.compile(
    r"\b(more than|greater than|over|above|at least|fewer than|less than|under|below|"
    r"at most|exactly|after|since|before|until|in)\s+(-?\d+(?:\.\d+)?)(?:\s+([a-z][\w\-]*))?",
    re.IGNORECASE,
)
# Phrases before an amount (not a year or a name: "in 1984", "after 2015")
_AMOUNT_PHRASES = frozenset(["more than", "greater than", "over", "above", "at least",
                             "fewer than", "less than", "under", "below", "at most"])
_OPS = {"more than": ">", "greater than": ">", "over": ">", "above": ">", "at least": ">=",
        "fewer than": "<", "less than": "<", "under": "<", "below": "<", "at most": "<=",
        "exactly": "=", "after": ">", "since": ">=", "before": "<", "until": "<=", "in": "="}


# How far the formalizer trusts the relation it wrote for a linked entity: one edge type
# the question's words name (or the only one there is), an edge type it had to choose
# among several, a two-hop path, any relation (no type or no schema path).
RELATION_TRUST = {"named": 1.0, "guessed": 0.6, "two_hops": 0.5, "any": 0.3}
# How far the class a question asks for is trusted ("which cheeses …" → kinds of the node
# `cheese`, ``af.offline_class``): below WEAK_LINKING on its own, so it re-ranks the words'
# candidates and adds none (0.3 and 0.45: the same WordNet dev figures; at 0.6 its members
# outranked BM25's right first answer twice).
CLASS_TRUST = 0.45


@dataclass
class OfflineFormalization:
    target_type: str | None
    cypher: str
    entities: list[LinkedEntity] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    # Confidence in [0, 1]: the mean over the linked entities of their link's confidence
    # times the trust in the relation written for them (0 without any). The hybrid
    # ranking trusts the Cypher this much (afr.methods.af.hybrid_ranking).
    confidence: float = 0.0


def _label_overlap(schema: SkbSchema, edge_type: str, question_words: set[str]) -> int:
    """How many of the question's words the edge type's own words name (``label_words``):
    "adjective_concept_is_similar_to_adjective_concept" names "similar", not
    "adjectives", which every edge between adjectives would match."""
    stems = {p[:5] for p in label_words(schema, edge_type)}
    return sum(1 for w in question_words if w[:5] in stems)


def _path_words(path: str) -> set[str]:
    return name_words(path.replace(".", " "))


PATH_WINDOW = 12  # words before an entity in which the question may write its path
# Words that introduce a node the question does not name ("a product", "an exposure").
_INDEFINITE = frozenset(["a", "an", "some", "any"])


def _written_path(schema: SkbSchema, target_type: str, ent: LinkedEntity, i: int,
                  question: str, words: dict[str, str], target: str, const: str
                  ) -> tuple[list[str], str] | None:
    """Two hops the question writes out before the entity: "bought together with a product
    by the brand X" — a relation's own word, then a type word for its other end after "a"
    or "an" (a node the question does not name), then the entity, joined to that type by
    one edge type (the only one, or one the words between them name: "a drug that targets
    X"). The middle node may be of the entity's own type when the words after it name the
    second hop ("viewed together with a product viewed together with X"), and a first hop
    whose label has no words of its own is named by the middle type's word itself ("in the
    category a category that contains X"). Such a path beats a direct edge the question
    does not name (product by brand X). The patterns, and the middle type."""
    before = [w.lower() for w, _, end in tokens(question) if end <= ent.span[0]][-PATH_WINDOW:]
    for j in range(len(before) - 1, 0, -1):
        mid = words.get(before[j])
        if mid is None:
            continue
        # the first hop is named before the middle type's word, the second after it
        said, then = set(before[:j]), set(before[j + 1:])
        second = _edge_choices(schema, mid, ent.node_type)
        if mid == ent.node_type and not any(_label_overlap(schema, e, then) for e, _ in second):
            continue  # "the brand X": the entity's own type, no relation written between
        if not _INDEFINITE & set(before[max(0, j - 3):j]):
            return None  # "the json module" names a linked entity's type, not a new node
        firsts = [(e, f) for e, f in _edge_choices(schema, target_type, mid)
                  if _label_overlap(schema, e, said) > 0
                  or (not label_words(schema, e) and _says_type_after_target(
                      before[:j], words, target_type, mid))]
        if not firsts or not second:
            return None
        e2, f2 = max(second, key=lambda c: _label_overlap(schema, c[0], then))
        if len(second) > 1 and _label_overlap(schema, e2, then) == 0:
            return None
        e1, f1 = max(firsts, key=lambda c: _label_overlap(schema, c[0], said))
        m = f"(m{i}:{_label(schema.node_types[mid].label)})"
        return ([_pattern(schema, e1, f1, target, m), _pattern(schema, e2, f2, m, const)],
                mid)
    return None


def _says_type_after_target(said: list[str], words: dict[str, str], target_type: str,
                            mid: str) -> bool:
    """Whether a word naming ``mid`` stands after the target's own type word: "a product
    in the category …" names the relation a label without words of its own stands for."""
    starts = [k for k, w in enumerate(said) if words.get(w) == target_type]
    return bool(starts) and any(words.get(w) == mid for w in said[starts[0] + 1:])


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
    return _alternatives(schema, [(edge_type, forward)], left, right)


def _alternatives(schema: SkbSchema, edges: list[tuple[str, bool]], left: str,
                  right: str) -> str:
    """(left)-[:a|b]-(right): any of the edge types, with an arrow only where every one of
    them has the same one (``_pattern``)."""
    arrows = {_arrow(schema, e, f) for e, f in edges}
    arrow = arrows.pop() if len(arrows) == 1 else None
    labels = "|".join(_label(schema.edge_types[e].label) for e, _ in edges)
    if arrow == "->":
        return f"{left}-[:{labels}]->{right}"
    if arrow == "<-":
        return f"{left}<-[:{labels}]-{right}"
    return f"{left}-[:{labels}]-{right}"


def _arrow(schema: SkbSchema, edge_type: str, forward: bool) -> str | None:
    """The arrow ("->" or "<-") of a directed edge type between two types; None for no
    arrow (``_pattern``)."""
    e = schema.edge_types[edge_type]
    if not schema.edge_directed(edge_type) or e.source_type == e.target_type:
        return None
    return "->" if forward else "<-"


@dataclass(frozen=True)
class _Comparison:
    """A condition read from a phrase such as "more than 40 senses"."""

    text: str  # the Cypher condition on y; "" for an amount whose attribute is unknown
    quantity: tuple[int, int]  # where the question writes the number (no entity there)
    trust: float  # 1 when the question's words name the attribute, else a guess (a year)


def _conditions(question: str, target_type: str | None, catalog: AttributeCatalog,
                question_words: set[str]) -> list[_Comparison]:
    if target_type is None:
        return []
    out = []
    for m in _COMPARE.finditer(question):
        phrase, number, hint = m.group(1).lower(), m.group(2), (m.group(3) or "").lower()
        found = _attribute(catalog, target_type, phrase, number, hint, question_words)
        if found is None:
            if phrase in _AMOUNT_PHRASES:
                # "more than 50 times": an amount whatever it counts, never the word "50"
                out.append(_Comparison("", m.span(2), 0.0))
            continue
        path, value_type, trust = found
        op = _OPS[phrase]
        if value_type == "date" and len(number) == 4:
            # A year against a date attribute: compare with the year's first/last day.
            value = f"'{number}-01-01'" if op in (">=", "<", "=") else f"'{number}-12-31'"
            text = (f"y.{path} >= '{number}-01-01' AND y.{path} <= '{number}-12-31'"
                    if op == "=" else f"y.{path} {op} {value}")
        else:
            text = f"y.{path} {op} {number}"
        out.append(_Comparison(text, m.span(2), trust))
    return out


def _attribute(catalog: AttributeCatalog, target_type: str, phrase: str, number: str,
               hint: str, question_words: set[str]) -> tuple[str, str, float] | None:
    """(path, value type, trust) of the number or date attribute a comparison is about:
    the one whose name's words the question names most, its hint word among them ("more
    than 40 senses as a verb": verb_senses, not senses), else a year's date attribute."""
    numeric = {p: v for p, v in catalog.entries.get(target_type, {}).items()
               if v in ("number", "date")}
    if hint:
        stem = hint.rstrip("s")[:5]
        named = [p for p in numeric if any(w[:5] == stem for w in _path_words(p))]
        if named:
            def score(path: str) -> tuple[int, int]:
                said = sum(1 for w in _path_words(path) if any(q[:5] == w[:5]
                                                               for q in question_words))
                return said, -len(path)
            best = max(named, key=score)
            return best, numeric[best], RELATION_TRUST["named"]
        for cand in (f"num_{hint}", f"number_of_{hint}"):
            hit = catalog.lookup(target_type, cand)
            if hit and hit[1] in ("number", "date"):
                return hit[0], hit[1], RELATION_TRUST["named"]
    if phrase in _AMOUNT_PHRASES:
        # "tagged more than 50 times in the corpus": the one number attribute whose name
        # the question's other words name (corpus_frequency), a guess
        said = [p for p, v in numeric.items() if v == "number" and any(
            q[:5] == w[:5] for w in _path_words(p) for q in question_words if len(w) > 3)]
        if len(said) == 1:
            return said[0], "number", RELATION_TRUST["guessed"]
    if len(number) == 4 and phrase in ("after", "since", "before", "until", "in"):
        for cand in ("year", "date", "published", "release_date", "added_in_release_date"):
            hit = catalog.lookup(target_type, cand)
            if hit and hit[1] in ("number", "date"):
                return hit[0], hit[1], RELATION_TRUST["guessed"]
    return None


def formalize(store: Store, question: str, schema: SkbSchema, catalog: AttributeCatalog,
              *, read_class: bool = False) -> OfflineFormalization:
    """``read_class``: join the target to the class the question asks for, if it names one
    (``afr.methods.af.asked_class``)."""
    target_type = guess_target_type(question, schema)
    words = type_words(schema)
    entities = link_entities(store, question, set(words), words)
    notes: list[str] = []
    patterns: list[str] = []
    support: list[float] = []  # how far each entity's pattern is trusted
    asked = asked_class(store, question, schema, target_type, words) if read_class else None
    if asked is not None:
        target_type = asked.member_type
        entities = [e for e in entities if asked.mention.lower() not in e.mention.lower()]
        patterns.append(_class_pattern(schema, asked, notes))
        support.append(CLASS_TRUST)
    qwords = {w.lower() for w, _, _ in tokens(question) if w.lower() not in STOPWORDS}
    conditions, entities = _comparisons(question, target_type, catalog, qwords, entities)
    support += [c.trust for c in conditions]
    target = f"(y:{_label(schema.node_types[target_type].label)})" if target_type else "(y)"
    qualifies = _qualifiers(store, entities, question, set(words))
    for i, ent in enumerate(entities, 1):
        const = _constant(schema, ent, i)
        if i in qualifies:
            other, etype, forward = qualifies[i]
            other_ent = entities[other - 1]
            anchor = f"(c{other}:{_label(schema.node_types[other_ent.node_type].label)})"
            patterns.append(_pattern(schema, etype, forward, anchor, const))
            notes.append(f"{ent.name!r} qualifies {other_ent.name!r} (they are adjacent)")
            support.append(ent.confidence)
        else:
            joined, relation = _join_to_target(schema, target_type, target, ent, const, i,
                                               (_words_before(question, ent, entities),
                                                qwords), notes, question, words)
            if asked is not None and relation < RELATION_TRUST["named"]:
                # beside the class, a relation guessed would only remove its members
                notes.append(f"{ent.name!r}: its relation to the answers is guessed; left "
                             "to BM25 and the vector search beside the class")
                continue
            patterns += joined
            support.append(_support(ent, relation, notes))
    if target_type is not None:
        links = relation_links(store, question, schema, target_type,
                               [e.span for e in entities], set(words))
        for n, link in enumerate(links, len(entities) + 1):
            patterns.append(_relation_link_pattern(schema, link, target, n, notes))
            support.append(link.entity.confidence * RELATION_TRUST["named"])
            entities.append(link.entity)
    if not patterns:
        patterns = [target]
        # ordinary words that happen to name nodes ("heart") are not links (linking.py)
        notes.append("no node name in the question is linked with confidence: BM25 and "
                     "vector search only")
    cypher = "MATCH " + ",\n      ".join(patterns)
    if conditions:
        cypher += "\nWHERE " + " AND ".join(c.text for c in conditions)
    confidence = sum(support) / len(support) if support else 0.0
    return OfflineFormalization(target_type, cypher + "\nRETURN y", entities, notes,
                                confidence)


def _comparisons(question: str, target_type: str | None, catalog: AttributeCatalog,
                 question_words: set[str], entities: list[LinkedEntity]
                 ) -> tuple[list[_Comparison], list[LinkedEntity]]:
    """The conditions the question's comparisons make, and the entities outside their
    numbers: the number of "more than 40 senses" is a quantity, not the word "40"."""
    comparisons = _conditions(question, target_type, catalog, question_words)
    entities = [e for e in entities if not any(c.quantity[0] <= e.span[0] < c.quantity[1]
                                               for c in comparisons)]
    return [c for c in comparisons if c.text], entities


def _constant(schema: SkbSchema, ent: LinkedEntity, i: int) -> str:
    """The ``i``-th linked entity as a Cypher constant: (ci:`type` {name: "…"})."""
    return f"(c{i}:{_label(schema.node_types[ent.node_type].label)} {{name: {_quote(ent.name)}}})"


def _relation_link_pattern(schema: SkbSchema, link: RelationLink, target: str, n: int,
                           notes: list[str]) -> str:
    """The target joined to the ``n``-th constant by the relation the question names."""
    ent = link.entity
    const = _constant(schema, ent, n)
    notes.append(f"{ent.mention!r} read as {ent.name!r}: the {link.edge_type} the question "
                 "names")
    return _pattern(schema, link.edge_type, link.forward, target, const)


def _class_pattern(schema: SkbSchema, asked: AskedClass, notes: list[str]) -> str:
    """The target as a member of the asked-for class; down a hierarchy's steps too."""
    also = f" (and by {', '.join(asked.alternatives)})" if asked.alternatives else ""
    notes.append(f"asks for the class {asked.name!r}: {asked.members} nodes point at it by "
                 f"{asked.edge_type}{also}")
    hops = f"*1..{HIERARCHY_HOPS}" if asked.hierarchy else ""
    edge = "|".join(_label(schema.edge_types[e].label)
                    for e in (asked.edge_type, *asked.alternatives))
    member = _label(schema.node_types[asked.member_type].label)
    klass = _label(schema.node_types[asked.node_type].label)
    return f"(y:{member})-[:{edge}{hops}]->(k:{klass} {{name: {_quote(asked.name)}}})"


def _support(ent: LinkedEntity, relation: float, notes: list[str]) -> float:
    """How far the pattern of ``ent`` joined by a relation trusted ``relation`` is trusted.
    An ordinary phrase joined by any relation earns the graph no say: its words are the
    question's, which BM25 already weighs, and the nodes around a phrase that merely
    occurs in the question are no evidence (WordNet dev: "sponge cake" put its subtypes
    above BM25's right "trifle"). A name, or a relation, is what the words cannot find."""
    if ent.ordinary and relation <= RELATION_TRUST["any"]:
        notes.append(f"{ent.mention!r} is an ordinary phrase joined by any relation: "
                     "no evidence beyond BM25's")
        return 0.0
    return ent.confidence * relation


def _qualifiers(store: Store, entities: list[LinkedEntity], question: str,
                type_names: set[str]) -> dict[int, tuple[int, str, bool]]:
    """An entity adjacent to another linked entity qualifies that entity, not the answer,
    where the question writes it so (``_qualifying``): entity number → (the one it
    qualifies, the edge type, stored in mention order)."""
    qualifies: dict[int, tuple[int, str, bool]] = {}
    if len(entities) < 2:
        return qualifies
    index = {e.node_id: i for i, e in enumerate(entities, 1)}
    for src, etype, dst in store.run("offline/entity_edges.sql", {"ids": list(index)}):
        a, b = index[int(src)], index[int(dst)]
        if a == b:
            continue
        # The later mention qualifies the earlier one ("X in the Y module").
        first, second = min(a, b), max(a, b)
        if second not in qualifies and _qualifying(
                question, entities[first - 1], entities[second - 1], type_names):
            qualifies[second] = (first, etype, a == first)
    return qualifies


def _qualifying(question: str, first: LinkedEntity, second: LinkedEntity,
                type_names: set[str]) -> bool:
    """Whether the question writes ``second`` as a qualifier of ``first``: only function
    words and type words between them ("X in the Y module"). Not "and" ("functions of
    both os and posixpath": each constrains the answer, however the two nodes are linked
    to each other), nor a content word, which is the answer's own relation to ``second``
    ("classes in the argparse module that inherit from ArgumentError", "X as well as
    Y")."""
    gap = question[first.span[1]:second.span[0]].lower()
    return all(w in STOPWORDS and w != "and"
               for w, _, _ in tokens(gap) if w not in type_names)


def _words_before(question: str, ent: LinkedEntity, entities: list[LinkedEntity]
                  ) -> set[str]:
    """The content words between the mention before ``ent`` (or the question's start) and
    ``ent``: where the question says how the answer relates to it ("bought together with
    X and viewed together with Y")."""
    start = max((e.span[1] for e in entities if e.span[1] <= ent.span[0]), default=0)
    return {w.lower() for w, _, _ in tokens(question[start:ent.span[0]])
            if w.lower() not in STOPWORDS}


def _join_to_target(schema: SkbSchema, target_type: str | None, target: str,
                    ent: LinkedEntity, const: str, i: int,
                    said: tuple[set[str], set[str]], notes: list[str], question: str,
                    words: dict[str, str]) -> tuple[list[str], float]:
    """The patterns that join entity ``i`` to the target — one hop, else two (the edge
    types whose labels name most of the words just before the entity, then of the whole
    question: ``said``; direct edge types the words cannot tell apart all join it), else
    any relation — and how far that guess of the relation is trusted
    (``RELATION_TRUST``)."""
    near, qwords = said

    def overlap(*edges: str) -> tuple[int, int]:
        return (sum(_label_overlap(schema, e, near) for e in edges),
                sum(_label_overlap(schema, e, qwords) for e in edges))

    if target_type is None:
        return [f"{target}--{const}"], RELATION_TRUST["any"]
    through = _written_path(schema, target_type, ent, i, question, words, target, const)
    if through is not None:
        notes.append(f"{ent.name!r} is reached through the {through[1]} the question writes "
                     "before it")
        return through[0], RELATION_TRUST["named"]
    direct = _edge_choices(schema, target_type, ent.node_type)
    if direct:
        scores = {e: overlap(e) for e, _ in direct}
        best = max(scores.values())
        tied = [(e, f) for e, f in direct if scores[e] == best]
        named = best[1] > 0 or len(direct) == 1
        if len(tied) > 1:
            notes.append(f"{ent.name!r}: the question names none of "
                         f"{', '.join(e for e, _ in tied)} over the others: any of them")
            return ([_alternatives(schema, tied, target, const)],
                    RELATION_TRUST["named" if named else "guessed"])
        edge, forward = tied[0]
        return ([_pattern(schema, edge, forward, target, const)],
                RELATION_TRUST["named" if named else "guessed"])
    two_hop = [
        (mid, e1, f1, e2, f2)
        for mid in schema.node_types
        for e1, f1 in _edge_choices(schema, target_type, mid)
        for e2, f2 in _edge_choices(schema, mid, ent.node_type)
    ]
    if two_hop:
        mid, e1, f1, e2, f2 = max(two_hop, key=lambda c: overlap(c[1], c[3]))
        m = f"(m{i}:{_label(schema.node_types[mid].label)})"
        return ([_pattern(schema, e1, f1, target, m), _pattern(schema, e2, f2, m, const)],
                RELATION_TRUST["two_hops"])
    notes.append(f"no schema path between {target_type} and {ent.node_type} "
                 f"({ent.name}): linked as any relation")
    return [f"{target}--{const}"], RELATION_TRUST["any"]
