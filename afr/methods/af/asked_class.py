"""The class a question asks for, read without an LLM: "Which cheeses come from …" asks
for kinds of the node `cheese`, "Which apostle handed …" for instances of `apostle`.

A question that names its answers by a common noun rather than by a node type names a
node of the SKB whose members are the answers: the nodes that point at it by one relation
(a kind of, an instance of, in the category). The relation is read from the graph, not
from its label: the one by which most nodes point at the named node. The offline
formalizer (``afr.methods.af.offline``) joins the target to that node like to any linked
entity, through every step of a hierarchy when the relation joins a type to itself.
"""

from __future__ import annotations

from dataclasses import dataclass

from afr.retrieval.linking import STOPWORDS, nodes_named, tokens
from afr.store.base import Store
from afr.store.skb import SkbSchema

# Words that open the asked-for noun phrase, and the words that mean "kinds of" before it.
_ASKING = frozenset(["which", "what"])
_KIND_OF = frozenset(["kind", "kinds", "type", "types", "sort", "sorts", "variety",
                      "varieties"])
# Words between "which of" and the noun it picks from ("which of Jesus's twelve
# apostles", "which of the planets"): determiners, possessives and numbers.
_PICKED_FROM = frozenset(["the", "these", "those", "its", "their", "his", "her", "all",
                          "both", "two", "three", "four", "five", "six", "seven", "eight",
                          "nine", "ten", "eleven", "twelve"])
MAX_PHRASE = 3  # words of the asked-for noun phrase
MIN_MEMBERS = 2  # a node fewer nodes point at is no class
HIERARCHY_HOPS = 3  # how far down a hierarchy (a relation of a type to itself) members sit
# Another relation of a type to itself is a parent relation of the same hierarchy when
# at most this share of the nodes that point out by it also point out by the backbone
# (``_other_parents``): an instance of a class has no kind-of parent (WordNet: 5 of
# 7,730), while most parts, regions and topics have one (60–98%; a sample of the graph
# that drops nodes drops parents too: 20–75% in the WordNet subset).
PARENT_OVERLAP = 0.1


@dataclass(frozen=True)
class AskedClass:
    name: str  # the class node's name, as the SKB writes it
    node_type: str  # the class node's type
    edge_type: str  # the relation by which members point at it
    member_type: str  # the members' type: the answers'
    members: int  # nodes pointing at it by that relation (all its namesakes)
    mention: str  # the question's words for it
    # the hierarchy's other parent relations (walked as [:edge|other])
    alternatives: tuple[str, ...] = ()

    @property
    def hierarchy(self) -> bool:
        return self.node_type == self.member_type


def asked_phrases(question: str, type_words: dict[str, str]) -> list[tuple[str, str]]:
    """(the question's words, the singular form to look up), longest first, for the noun
    phrase right after the question's opening "which" / "what" ("kinds of" skipped). None
    when that phrase is a type's name (the answer type says it), a stopword, or a relational
    noun ("which member of …": the class is after the "of", not the member)."""
    words = [w for w, _, _ in tokens(question)]
    lower = [w.lower() for w in words]
    opening = next((i for i, w in enumerate(lower[:3]) if w in _ASKING), None)
    if opening is None:
        return []
    start = _picked_from(lower, opening + 1)
    if start + 1 < len(lower) and lower[start] in _KIND_OF and lower[start + 1] == "of":
        start += 2
    end = _phrase_end(lower, start)
    if end == start or lower[start] in type_words or (end < len(lower) and lower[end] == "of"):
        return []
    # Where the phrase ends is not known (no part-of-speech tags): every run of its words,
    # longest first, then the earlier first: the word after "which" is most often the
    # class, the one after it the question's verb ("which vipers live …"); a shorter run
    # may drop a modifier too ("brass wind instruments": wind instruments).
    spans = sorted(((b, e) for b in range(start, end) for e in range(b + 1, end + 1)),
                   key=lambda span: (span[0] - span[1], span[0]))
    head = _after_proper_modifiers(words, start)
    if head > start:
        # capitalised words before a common noun modify it ("which South American national
        # capital", "which Athenian philosopher"): the runs that open with that noun come
        # first (not a later word alone: "which Australian term denotes" is no verb class)
        first = [(head, e) for e in range(_phrase_end(lower, head), head, -1)]
        spans = first + [s for s in spans if s not in first]
    out = []
    for b, e in spans:
        mention = " ".join(words[b:e])
        for form in _singulars(lower[e - 1]):
            out.append((mention, " ".join([*lower[b:e - 1], form])))
    return out


def _phrase_end(lower: list[str], start: int) -> int:
    """Where the noun phrase from ``start`` ends: at the first stopword, at most
    ``MAX_PHRASE`` words on."""
    end = start
    while end < len(lower) and end - start < MAX_PHRASE and lower[end] not in STOPWORDS:
        end += 1
    return end


def _after_proper_modifiers(words: list[str], start: int) -> int:
    """Where the common noun starts after the capitalised words that open the phrase
    (at most ``MAX_PHRASE`` of them); ``start`` when none or when no lowercase word of
    the phrase follows them (a name: "which Beatle")."""
    i = start
    while i < len(words) and i - start < MAX_PHRASE and words[i][:1].isupper():
        i += 1
    if i == start or i >= len(words) or not words[i][:1].islower() \
            or words[i].lower() in STOPWORDS:
        return start
    return i


def _picked_from(lower: list[str], start: int) -> int:
    """Where the noun phrase starts after "which": past "of" and the determiners,
    possessives and numbers after it ("which of Jesus's twelve apostles": apostles)."""
    if start >= len(lower) or lower[start] != "of":
        return start
    i = start + 1
    while i + 1 < len(lower) and (lower[i] in _PICKED_FROM or lower[i].isdigit()
                                  or lower[i].endswith(("'s", "’s", "s'"))):
        i += 1
    return i


def _singulars(word: str) -> list[str]:
    """The word and the singulars it may be the plural of, most likely first."""
    forms = [word]
    if word.endswith("ies") and len(word) > 4:
        forms.append(word[:-3] + "y")
    if word.endswith("es") and len(word) > 3:
        forms.append(word[:-2])
    if word.endswith("s") and not word.endswith("ss") and len(word) > 3:
        forms.append(word[:-1])
    return forms


def asked_class(store: Store, question: str, schema: SkbSchema, target_type: str | None,
                type_words: dict[str, str]) -> AskedClass | None:
    """The class the question asks for: the longest asked-for phrase that names nodes of
    the SKB at least ``MIN_MEMBERS`` nodes (of the target type, when there is one) point at
    by one relation, and that relation."""
    phrases = asked_phrases(question, type_words)
    if not phrases:
        return None
    named = nodes_named(store, sorted({f for _, f in phrases}))
    for mention, form in phrases:
        nodes = [n for n in named.get(form, []) if n[2].lower() == form]
        if not nodes:
            continue
        found = _class_relation(store, schema, nodes, target_type)
        if found is None:
            continue
        (edge_type, members), others = found
        edge = schema.edge_types[edge_type]
        assert edge.source_type is not None and edge.target_type is not None
        name = next(n[2] for n in nodes if n[1] == edge.target_type)
        return AskedClass(name, edge.target_type, edge_type, edge.source_type, members,
                          mention, others)
    return None


def _class_relation(store: Store, schema: SkbSchema, nodes: list[tuple[int, str, str]],
                    target_type: str | None
                    ) -> tuple[tuple[str, int], tuple[str, ...]] | None:
    """The relation by which most answers point at ``nodes``, and how many do, with the
    hierarchy's other parent relations (``_other_parents``); None when fewer than
    ``MIN_MEMBERS`` do by any. Answers are nodes of the target type, or, when
    the question names none, of a candidate type: the class's own type first ("which
    cheeses" are concepts like `cheese`, not the words that can mean it), else the type
    that points at it ("which editors" are the packages in the section `editors`)."""
    rows = store.run("offline/class_members.sql", {"ids": sorted({n[0] for n in nodes})})
    usable = []
    for edge_type, members in rows:
        edge = schema.edge_types.get(edge_type)
        if edge is None or edge.source_type is None or int(members) < MIN_MEMBERS:
            continue
        hierarchy = edge.source_type == edge.target_type
        # a node of an answer type that nodes of another type point at is an entity
        # (the noun `keep` that words can mean), not a class of them
        if not hierarchy and edge.target_type in schema.candidate_types:
            continue
        if edge.source_type == target_type or (
                target_type is None and edge.source_type in schema.candidate_types):
            usable.append((edge_type, int(members), hierarchy))
    own = [u for u in usable if u[2]] if target_type is None else []
    ranked = own or usable
    if not ranked:
        return None
    best_type, most, hierarchy = ranked[0]
    return (best_type, most), _other_parents(store, schema, best_type) if hierarchy else ()


def _other_parents(store: Store, schema: SkbSchema, first: str) -> tuple[str, ...]:
    """The hierarchy's other parent relations beside ``first`` (a relation of a type to
    itself): empty when ``first`` is not one of them (part of)."""
    node_type = schema.edge_types[first].source_type
    parents = store.fact(("hierarchy_parents", node_type),
                         lambda: _parent_relations(store, schema, node_type))
    return tuple(sorted(parents - {first})) if first in parents else ()


def _parent_relations(store: Store, schema: SkbSchema, node_type: str | None
                      ) -> frozenset[str]:
    """The parent relations of ``node_type``'s hierarchy, read from the graph once per
    store: its backbone, the type's relation to itself that most nodes point out by
    (kind of), and every other that its nodes take instead of the backbone
    (``PARENT_OVERLAP``: instance of), by at least ``MIN_MEMBERS`` nodes."""
    relations = sorted(e.type for e in schema.edge_types.values()
                       if e.source_type == node_type and e.target_type == node_type)
    if not relations:
        return frozenset()
    rows = store.run("offline/hierarchy_parents.sql", {"relations": relations})
    return frozenset(edge_type for edge_type, n, with_backbone, is_backbone in rows
                     if is_backbone or (int(n) >= MIN_MEMBERS
                                        and int(with_backbone) <= PARENT_OVERLAP * int(n)))
