"""afr.cypher."""
