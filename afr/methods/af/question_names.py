"""The names a question gives to what its Cypher misspelt or left unnamed (fixes of step 3a).

An LLM misspells or shortens a name the question writes out: "Noreeraft Co." for the
brand "Norecraft Co.", "partitioning of satellite imagery" for the paper "Unsupervised
partitioning of satellite imagery". Step 4 would search for similar names and widen the
scope; but the question has the name right. When no node of its type bears a constant's
name, and the question names, by a confident link, nodes of that type under one name
alike to it (``MIN_LIKENESS``, or containing it), that name replaces it (kind
``name_respelled``).

An LLM sometimes drops a constant's name: "Find a paper written by Ben O. Suzuki" written
as ``(c0:author)-[:author_writes_paper]->(y:paper)``, which every author's papers meet.
The schema allows it, so no fix of ``afr.cypher.fix`` applies, and the grounding would
rank thousands of answers as equally good. When the question names, by a confident link
(``afr.retrieval.linking``: a name of several words, or one written as a name), nodes of
one name and of a type that exactly one unnamed end of the query has, and the query does
not name them already, that end gets the name (kind ``name_from_question``). Both kinds
are listed and logged like every fix.

Only an end is named: a symbol of one one-hop relationship, not the target, with no
condition. A symbol between two relationships is a path's middle ("a paper that cites a
paper on the topic X"), which the question describes by the nodes around it, not by a
name of its own; and an end of a type the question writes out beside the target's own
mention ("a product viewed together with a product bought together with X") is such a
node too, whose path the query cut short (X sits one hop further on).
"""

from __future__ import annotations

from collections import Counter
from dataclasses import replace
from difflib import SequenceMatcher

from afr.cypher.fix import Fix, symbol_type
from afr.cypher.model import Condition, QueryGraph, name_search_strings
from afr.cypher.resolve import ResolvedQuery
from afr.retrieval.linking import (
    STOPWORDS,
    LinkedEntity,
    link_entities,
    tokens,
    type_words,
)
from afr.store.base import Store
from afr.store.names import has_name_index, lookup_names
from afr.store.skb import SkbSchema

NAME_FROM_QUESTION = "name_from_question"  # an unnamed end named
NAME_RESPELLED = "name_respelled"  # a name no node has, as the question writes it
# A link this sure: several words written as a name ("Ben O. Suzuki"), or one word
# written as a name that one node bears; an ordinary word never names an end.
MIN_CONFIDENCE = 0.7
# How alike a query's name and the question's must be to be one name misspelt
# (difflib's ratio: "Noreeraft Co." and "Norecraft Co." 0.92; "Gamin Gadgets for Kiss"
# and "Gaming Gadgets for Kids" 0.93); a part of the question's name counts as alike.
MIN_LIKENESS = 0.8


def names_from_question(store: Store, graph: QueryGraph, schema: SkbSchema, question: str
                        ) -> list[Fix]:
    """Mend ``graph`` (in place) by the names ``question`` links with confidence: a
    constant's name no node has becomes the question's like name, then unnamed ends get
    the question's names; the fixes made."""
    constants = _constants(graph, schema)
    ends = _unnamed_ends(graph, schema)
    if not constants and not ends:
        return []
    # no node bears the name exactly, as step 4 looks it up (a store without the name
    # index is left as it is: its lookup is a scan)
    known = lookup_names(store, [v for _, _, v in constants]) \
        if constants and has_name_index(store) else [[(0, t)] for _, t, _ in constants]
    unknown = [(var, node_type, value) for (var, node_type, value), hits
               in zip(constants, known, strict=True) if all(t != node_type for _, t in hits)]
    if not unknown and not ends:
        return []
    words = type_words(schema)
    linked = [e for e in link_entities(store, question, set(words), words)
              if e.confidence >= MIN_CONFIDENCE]
    fixes = [fix for var, node_type, value in unknown
             if (fix := _respell(graph, var, node_type, value, linked, question))]
    return fixes + _name_ends(graph, schema, ends, linked, words, question)


def _respell(graph: QueryGraph, var: str, node_type: str, value: str,
             linked: list[LinkedEntity], question: str) -> Fix | None:
    """``var``'s name ``value``, which no node of its type has, as the question writes it:
    the one linked name of the type most like it (``MIN_LIKENESS``) that the query does
    not write elsewhere."""
    written = _written_names(graph)
    scored = [(_likeness(value, e.name), e) for e in linked
              if e.node_type == node_type and e.name.lower() not in written]
    best = max((score for score, _ in scored), default=0.0)
    names = {e.name for score, e in scored if score == best}
    if best < MIN_LIKENESS or len(names) != 1:
        return None
    entity = next(e for score, e in scored if score == best)
    symbol = graph.symbols[var]
    symbol.conditions = [replace(c, value=entity.name) if c.value == value
                         and name_search_strings(c) else c for c in symbol.conditions]
    return Fix(NAME_RESPELLED, _symbol_text(graph, var), f"{var}.name = {value!r}",
               f"{var}.name = {entity.name!r}",
               f"no {node_type} is named {value!r}; the question writes "
               f"{question[slice(*entity.span)]!r}")


def _name_ends(graph: QueryGraph, schema: SkbSchema, ends: dict[str, str],
               linked: list[LinkedEntity], words: dict[str, str], question: str
               ) -> list[Fix]:
    """Give ``graph``'s unnamed ``ends`` (in place) the names ``question`` links; the
    fixes made."""
    if not ends:
        return []
    written = _written_names(graph)
    described = _described_types(question, words, linked, symbol_type(graph, schema,
                                                                       graph.target))
    fresh = [e for e in linked if not any(_same_name(e.name, w) for w in written)]
    per_type = Counter(ends.values())
    fixes: list[Fix] = []
    for var, node_type in ends.items():
        names = {e.name for e in fresh if e.node_type == node_type}
        if per_type[node_type] != 1 or len(names) != 1 or described[node_type]:
            continue  # which end a name belongs to, or which name, would be a guess
        entity = next(e for e in fresh if e.node_type == node_type)
        fixes.append(_name_end(graph, var, entity, question[slice(*entity.span)]))
    return fixes


def _name_end(graph: QueryGraph, var: str, entity: LinkedEntity, said: str) -> Fix:
    graph.symbols[var].conditions.append(Condition("name", "=", entity.name))
    return Fix(NAME_FROM_QUESTION, _symbol_text(graph, var), None, f"{var}.name = {entity.name!r}",
               f"the question names the {entity.node_type} {said!r}, which the "
               "query leaves unnamed")


def _written_names(graph: QueryGraph) -> set[str]:
    """Every name the query writes, lower-cased."""
    return {n.lower() for s in graph.symbols.values() for c in s.conditions
            for n in name_search_strings(c)}


def _symbol_text(graph: QueryGraph, var: str) -> str:
    label = graph.symbols[var].label
    return f"({var}:{label})" if label else f"({var})"


def _constants(graph: QueryGraph, schema: SkbSchema) -> list[tuple[str, str, str]]:
    """(symbol, node type, name) of each symbol named by one ``name = "…"`` condition."""
    out = []
    for var, symbol in graph.symbols.items():
        node_type = symbol_type(graph, schema, var)
        names = [c.value for c in symbol.conditions
                 if name_search_strings(c) and c.op == "=" and isinstance(c.value, str)]
        if node_type is not None and len(names) == 1 and names[0].strip():
            out.append((var, node_type, names[0]))
    return out


def _unnamed_ends(graph: QueryGraph, schema: SkbSchema) -> dict[str, str]:
    """The symbols, with their node types, that sit at the end of exactly one one-hop
    relationship, are not the target, and carry no condition."""
    degree = Counter(v for t in graph.triplets for v in {t.head, t.tail})
    one_hop = {v for t in graph.triplets if t.max_hops == 1 for v in (t.head, t.tail)}
    out: dict[str, str] = {}
    for var, symbol in graph.symbols.items():
        node_type = symbol_type(graph, schema, var)
        if var == graph.target or symbol.conditions or degree[var] != 1 \
                or var not in one_hop or node_type is None:
            continue
        out[var] = node_type
    return out


def _described_types(question: str, words: dict[str, str], linked: list[LinkedEntity],
                      target_type: str | None) -> Counter[str]:
    """How often the question writes each node type's word outside the linked names, the
    target's own mention aside: "a product viewed together with a product bought together
    with X" describes a second product (the path's next node) and names X two hops on;
    the unnamed end is that product, not X."""
    inside = [e.span for e in linked]
    said = Counter(words[w.lower()] for w, start, _ in tokens(question)
                   if w.lower() in words and not any(a <= start < b for a, b in inside))
    if target_type is not None and said[target_type]:
        said[target_type] -= 1
    return said


def _likeness(written: str, linked: str) -> float:
    """How alike a query's name and a linked one are: 0.9 for a part of it (an LLM's
    partial name), else difflib's ratio of the lower-cased two."""
    a, b = written.lower().strip(), linked.lower()
    if len(a) >= 4 and a in b:
        return 0.9
    return SequenceMatcher(None, a, b).ratio()


def _same_name(linked: str, written: str) -> bool:
    """Whether a query's name is the linked one, or a part of it (an LLM's partial name:
    "partitioning of satellite imagery" for "Unsupervised partitioning of satellite
    imagery")."""
    a, b = linked.lower(), written.lower().strip()
    return bool(b) and (a == b or b in a or a in b)


def unmentioned_constants(query: ResolvedQuery, question: str) -> list[str]:
    """The query's constants (not the target) none of whose names' words the question
    writes in any form (``_alike_words``; stopwords aside): "Vintage Copper Backpack Z500"
    in a query for a question about a knife set's colours. A name the LLM chose for the
    question's own words ("corvine bird" for "a bird of the crow family") shares a word
    with it, a shortened or misspelt one ("argp", "Noreeraft") is alike."""
    said = {w.lower() for w, _, _ in tokens(question) if w.lower() not in STOPWORDS}
    out = []
    for var, symbol in query.symbols.items():
        if var == query.target or not symbol.is_constant:
            continue
        words = {w.lower() for name in symbol.search_strings
                 for w, _, _ in tokens(name) if w.lower() not in STOPWORDS}
        if words and not any(_alike_words(w, q) for w in words for q in said):
            out.append(var)
    return out


def _alike_words(a: str, b: str) -> bool:
    """One word, however written: the same stem (five letters), one the start of the
    other ("argp" of "argparse"), or a misspelling (difflib's ratio ``MIN_LIKENESS``)."""
    if a[:5] == b[:5] or (min(len(a), len(b)) >= 3 and (a.startswith(b) or b.startswith(a))):
        return True
    return SequenceMatcher(None, a, b).ratio() >= MIN_LIKENESS
