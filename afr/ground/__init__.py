"""Step 5: grounding with incremental scope expansion, in SQL (and its set oracle)."""

from afr.ground.compile import CompiledGrounding, compile_grounding
from afr.ground.query import (
    EdgeDirections,
    EdgeEndpoints,
    GroundingQuery,
    GroundingResult,
    GSymbol,
    GTriplet,
)
from afr.ground.run import edge_directions, edge_endpoints, ground
from afr.ground.schedule import candidate_levels, level_of_candidate, level_of_rank, scope_schedule

__all__ = [
    "CompiledGrounding", "EdgeDirections", "EdgeEndpoints", "GSymbol", "GTriplet",
    "GroundingQuery", "GroundingResult", "candidate_levels", "compile_grounding",
    "edge_directions", "edge_endpoints", "ground", "level_of_candidate", "level_of_rank",
    "scope_schedule",
]
