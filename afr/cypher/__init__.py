"""Step 3: Cypher → query graph."""

from afr.cypher.parser import parse_cypher

__all__ = ["parse_cypher"]
