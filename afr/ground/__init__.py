"""Step 5: grounding with incremental scope expansion, in SQL (and its set oracle)."""

from afr.ground.compile import CompiledGrounding, compile_grounding
from afr.ground.query import EdgeDirections, GroundingQuery, GroundingResult, GSymbol, GTriplet
from afr.ground.run import edge_directions, ground
from afr.ground.schedule import level_of_rank, scope_schedule

__all__ = [
    "CompiledGrounding", "EdgeDirections", "GSymbol", "GTriplet", "GroundingQuery", "GroundingResult",
    "compile_grounding", "edge_directions", "ground", "level_of_rank", "scope_schedule",
]
