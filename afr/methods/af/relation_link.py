"""Links led by a relation the question names, read without an LLM: in "Which verb is the
opposite of ascending?" the word "opposite" names the relation
`verb_concept_is_the_opposite_of_verb_concept`, and the word after it, "ascending", is
the verb `ascend` in another form.

Entity linking (``afr.retrieval.linking``) links names written as the SKB writes them; a
word inflected by the sentence ("ascending", "sleeping") names no node. Here the
relation's own words vouch for the link: a node of the relation's other end type whose
name has the word's stem (the lexical index's stemmer), among the few content words right
after the relation's word.
"""

from __future__ import annotations

from dataclasses import dataclass

from afr.lexical.record import index_tokenizer
from afr.lexical.tokens import Tokenizer
from afr.retrieval.linking import STOPWORDS, LinkedEntity, label_words, tokens
from afr.store.base import Store
from afr.store.skb import SkbSchema

OBJECT_WORDS = 3  # content words after the relation's word that may name its other end
STEM_PREFIX = 5  # a question word names a label word when their first letters agree
# How sure a link through a word's stem is: a single ordinary word, vouched for by the
# relation named right before it; less when the word names nodes at the ends of several of
# the relations named there (a "hinged catch" as the noun or the verb hinge, for "can
# mean"), so that the relation is a guess: below the ranking's WEAK_LINKING, it re-ranks.
STEM_LINK_CONFIDENCE = 0.6
AMBIGUOUS_STEM_LINK_CONFIDENCE = 0.45
# Endings an English word takes in a sentence, and what its dictionary form may end in.
_ENDINGS = (("ing", ""), ("ing", "e"), ("ed", ""), ("ed", "e"), ("es", ""), ("s", ""),
            ("ation", "ate"), ("ation", "e"), ("ion", "e"), ("ion", ""), ("ment", ""),
            ("ly", ""), ("ies", "y"), ("ied", "y"))


@dataclass(frozen=True)
class RelationLink:
    entity: LinkedEntity
    edge_type: str  # the relation the question names
    forward: bool  # stored as answer → entity


def relation_links(store: Store, question: str, schema: SkbSchema, target_type: str,
                   taken: list[tuple[int, int]], type_words: set[str]) -> list[RelationLink]:
    """For each word of the question that names relations of the target type by their own
    words, the node of such a relation's other end named, in another form, by the first of
    the next ``OBJECT_WORDS`` content words that names one: one link per relation word
    (spans in ``taken`` are linked already; type words name answers, not entities)."""
    words = tokens(question)
    stem = _stem_of(store)
    found: list[RelationLink] = []
    named = named_relations(schema, target_type, words)
    for at in sorted({r.at for r in named}):
        here = [r for r in named if r.at == at]
        own = set().union(*(r.own for r in here))
        after = [(w, s, e) for w, s, e in words[at + 1:]
                 if w.lower() not in STOPWORDS and w.lower() not in type_words
                 and w.lower()[:STEM_PREFIX] not in own and not _inside(s, e, taken)]
        for word, start, end in after[:OBJECT_WORDS]:
            link = _link_by_stem(store, word, (start, end), here, stem)
            if link is not None:
                found.append(link)
                taken = [*taken, (start, end)]
                break
    return found


@dataclass(frozen=True)
class NamedRelation:
    edge_type: str
    other: str  # the type at its other end
    forward: bool  # stored as answer → other
    at: int  # the position of the question's word naming it
    own: frozenset[str]  # its label's own words (their first letters)


def named_relations(schema: SkbSchema, target_type: str,
                    words: list[tuple[str, int, int]]) -> list[NamedRelation]:
    """The relations of the target type the question names by its label's own words (the
    end types' names aside, as in the offline formalizer), where it first names each."""
    out = []
    for e in schema.edge_types.values():
        if target_type not in (e.source_type, e.target_type) or e.target_type is None \
                or e.source_type is None:
            continue
        own = frozenset(p[:STEM_PREFIX] for p in label_words(schema, e.type) if len(p) >= 4)
        at = next((i for i, (w, _, _) in enumerate(words)
                   if len(w) >= 4 and w.lower()[:STEM_PREFIX] in own), None)
        if at is None:
            continue
        forward = e.source_type == target_type
        other = e.target_type if forward else e.source_type
        out.append(NamedRelation(e.type, other, forward, at, own))
    return out


def _inside(start: int, end: int, spans: list[tuple[int, int]]) -> bool:
    return any(start >= s and end <= e for s, e in spans)


def _stem_of(store: Store) -> Tokenizer:
    """The lexical index's own tokeniser (its stemmer), else English Snowball."""
    return index_tokenizer(store) or Tokenizer(stemmer="english", stopwords=False)


def _link_by_stem(store: Store, word: str, span: tuple[int, int],
                  named: list[NamedRelation], tokenizer: Tokenizer) -> RelationLink | None:
    """The link of ``word`` to a node at the other end of one of ``named`` whose name, in
    a dictionary form, has the word's stem: the first relation (in the schema's order)
    whose other end has such a node, less sure when several ends have one."""
    lower = word.lower()
    wanted = tokenizer.tokens(lower)
    if len(wanted) != 1:
        return None
    forms = {lower} | {lower[:-len(end)] + base for end, base in _ENDINGS
                       if lower.endswith(end) and len(lower) - len(end) >= 3}
    rows = store.run("offline/link_names.sql", {"grams": sorted(forms)})
    nodes = sorted((int(r[0]), r[1], r[3]) for r in rows
                   if r[3] and tokenizer.tokens(r[3].lower()) == wanted)
    readings = [(rel, hit) for rel in named
                if (hit := next((n for n in nodes if n[1] == rel.other), None))]
    if not readings:
        return None
    rel, hit = readings[0]
    sure = len({r.other for r, _ in readings}) == 1
    entity = LinkedEntity(hit[0], rel.other, hit[2], lower, span,
                          STEM_LINK_CONFIDENCE if sure else AMBIGUOUS_STEM_LINK_CONFIDENCE,
                          ordinary=False)
    return RelationLink(entity, rel.edge_type, rel.forward)
