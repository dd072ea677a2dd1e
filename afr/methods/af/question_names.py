"""The names a question gives to what its Cypher left unnamed (a fix of step 3a).

An LLM sometimes drops a constant's name: "Find a paper written by Ben O. Suzuki" written
as ``(c0:author)-[:author_writes_paper]->(y:paper)``, which every author's papers meet.
The schema allows it, so no fix of ``afr.cypher.fix`` applies, and the grounding would
rank thousands of answers as equally good. When the question names, by a confident link
(``afr.retrieval.linking``: a name of several words, or one written as a name), nodes of
one name and of a type that exactly one unnamed end of the query has, and the query does
not name them already, that end gets the name (kind ``name_from_question``), listed and
logged like every fix.

Only an end is named: a symbol of one one-hop relationship, not the target, with no
condition. A symbol between two relationships is a path's middle ("a paper that cites a
paper on the topic X"), which the question describes by the nodes around it, not by a
name of its own; and an end of a type the question writes out beside the target's own
mention ("a product viewed together with a product bought together with X") is such a
node too, whose path the query cut short (X sits one hop further on).
"""

from __future__ import annotations

from collections import Counter

from afr.cypher.fix import Fix, symbol_type
from afr.cypher.model import Condition, QueryGraph, name_search_strings
from afr.retrieval.linking import LinkedEntity, link_entities, tokens, type_words
from afr.store.base import Store
from afr.store.skb import SkbSchema

NAME_FROM_QUESTION = "name_from_question"  # the kind of the fixes made here
# A link this sure: several words written as a name ("Ben O. Suzuki"), or one word
# written as a name that one node bears; an ordinary word never names an end.
MIN_CONFIDENCE = 0.7


def name_unnamed_ends(store: Store, graph: QueryGraph, schema: SkbSchema, question: str
                      ) -> list[Fix]:
    """Give ``graph``'s unnamed ends (in place) the names ``question`` links with
    confidence; the fixes made."""
    ends = _unnamed_ends(graph, schema)
    if not ends:
        return []
    words = type_words(schema)
    written = [n.lower() for s in graph.symbols.values() for c in s.conditions
               for n in name_search_strings(c)]
    linked = [e for e in link_entities(store, question, set(words), words)
              if e.confidence >= MIN_CONFIDENCE
              and not any(_same_name(e.name, w) for w in written)]
    per_type = Counter(ends.values())
    described = _described_types(question, words, linked, symbol_type(graph, schema,
                                                                       graph.target))
    fixes: list[Fix] = []
    for var, node_type in ends.items():
        names = {e.name for e in linked if e.node_type == node_type}
        if per_type[node_type] != 1 or len(names) != 1 or described[node_type]:
            continue  # which end a name belongs to, or which name, would be a guess
        entity = next(e for e in linked if e.node_type == node_type)
        fixes.append(_name_end(graph, var, entity, question[slice(*entity.span)]))
    return fixes


def _name_end(graph: QueryGraph, var: str, entity: LinkedEntity, said: str) -> Fix:
    symbol = graph.symbols[var]
    written = f"({var}:{symbol.label})" if symbol.label else f"({var})"
    symbol.conditions.append(Condition("name", "=", entity.name))
    return Fix(NAME_FROM_QUESTION, written, None, f"{var}.name = {entity.name!r}",
               f"the question names the {entity.node_type} {said!r}, which the "
               "query leaves unnamed")


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


def _same_name(linked: str, written: str) -> bool:
    """Whether a query's name is the linked one, or a part of it (an LLM's partial name:
    "partitioning of satellite imagery" for "Unsupervised partitioning of satellite
    imagery")."""
    a, b = linked.lower(), written.lower().strip()
    return bool(b) and (a == b or b in a or a in b)
