"""Step 3: Cypher text → query graph (``parse_cypher``) → checked against the SKB schema
(``resolve``)."""

from afr.cypher.grammar import parse_cypher
from afr.cypher.hints import locate, locate_text
from afr.cypher.model import Condition, Dropped, QueryGraph, Symbol, Triplet
from afr.cypher.render import render_cypher
from afr.cypher.resolve import Mode, ResolvedQuery, ResolvedSymbol, ResolvedTriplet, resolve

__all__ = ["Condition", "Dropped", "Mode", "QueryGraph", "ResolvedQuery", "ResolvedSymbol",
           "ResolvedTriplet", "Symbol", "Triplet", "locate", "locate_text", "parse_cypher",
           "render_cypher", "resolve"]
