"""The relations a question names, beside those its Cypher chose (the last fix of step 3a).

An LLM often joins the right constant to the answers by a wrong relation between the right
types: "What substances is bone composed of?" written as
``(y:noun_concept)-[:noun_concept_is_a_part_of_noun_concept]->(:noun_concept {name:
"bone"})``. The schema allows it, so no fix of ``afr.cypher.fix`` applies, and its answers
would be trusted. When the question names by its label's own words
(``afr.methods.af.relation_link.named_relations``) a relation between the same two types
and names none of those the relationship has, the named relations become alternatives of
the relationship (``[:…is_a_part_of…|…is_a_substance_of…]``): the answers of both are
grounded, and the ranking tells them apart. It adds answers and removes none; each
addition is a fix (``edge_named``), listed and logged like the schema's.

Only a one-hop relationship between the target and a named constant is widened (a path
of several hops is the Cypher's own design, and a relation between two other symbols is
not what the question's words about its answers name); a named relation keeps the
relationship's direction where its end types allow only one.
"""

from __future__ import annotations

from dataclasses import replace

from afr.cypher.fix import Fix, symbol_type, triplet_text
from afr.cypher.model import QueryGraph, Triplet, name_search_strings
from afr.methods.af.relation_link import NamedRelation, named_relations
from afr.retrieval.linking import tokens
from afr.store.skb import SkbSchema
from afr.text import without_names

EDGE_NAMED = "edge_named"  # the kind of the fixes made here


def add_named_relations(graph: QueryGraph, schema: SkbSchema, question: str) -> list[Fix]:
    """Widen ``graph`` (in place) by the relations ``question`` names; the fixes made."""
    target_type = symbol_type(graph, schema, graph.target)
    if graph.target is None or target_type is None:
        return []
    words = tokens(_without_names(question, graph))
    named = named_relations(schema, target_type, words)
    fixes: list[Fix] = []
    for i, t in enumerate(graph.triplets):
        added = _named_beside(graph, schema, t, named) if named else []
        if not added:
            continue
        labels = [schema.edge_types[n.edge_type].label for n in added]
        graph.triplets[i] = replace(t, alternatives=(*t.alternatives, *labels))
        chosen = "|".join((t.edge or "", *t.alternatives))
        said = "; ".join(f"{words[n.at][0]!r} names {label}"
                         for n, label in zip(added, labels, strict=True))
        fixes.append(Fix(EDGE_NAMED, triplet_text(t), chosen, "|".join((chosen, *labels)),
                         f"the question's {said}"))
    return fixes


def _named_beside(graph: QueryGraph, schema: SkbSchema, t: Triplet,
                  named: list[NamedRelation]) -> list[NamedRelation]:
    """The relations to add to ``t`` (none when it is not a one-hop
    relationship between the target and a constant, or has a named relation already)."""
    target = graph.target
    if t.edge is None or t.max_hops != 1 or t.head == t.tail or target not in (t.head,
                                                                               t.tail):
        return []
    other = t.tail if t.head == target else t.head
    other_type = symbol_type(graph, schema, other)
    if other_type is None or not graph.symbols[other].is_constant:
        return []
    here = [n for n in named if n.other == other_type]
    chosen = {schema.edge_type(e) for e in (t.edge, *t.alternatives)}
    if chosen & {n.edge_type for n in here}:
        return []
    # One type at both ends: either direction is the schema's; else the relationship's
    # direction must be the named relation's (answer → other when the target is the head).
    same_type = other_type == symbol_type(graph, schema, target)
    return [n for n in here
            if same_type or not t.directed or n.forward == (t.head == target)]


def _without_names(question: str, graph: QueryGraph) -> str:
    """The question with the constants' names blanked out: a relation's word inside a
    name ("vitamin D metabolism") names that node, not a relation."""
    return without_names(question, [n for sym in graph.symbols.values()
                                    for c in sym.conditions for n in name_search_strings(c)])

