"""Step 3: Cypher text → query graph (``parse_cypher``) → checked against the SKB schema
(``resolve``)."""

from afr.cypher.grammar import parse_cypher
from afr.cypher.model import Condition, Dropped, QueryGraph, Symbol, Triplet
from afr.cypher.resolve import Mode, ResolvedQuery, ResolvedSymbol, ResolvedTriplet, resolve

__all__ = ["Condition", "Dropped", "Mode", "QueryGraph", "ResolvedQuery", "ResolvedSymbol",
           "ResolvedTriplet", "Symbol", "Triplet", "parse_cypher", "resolve"]
