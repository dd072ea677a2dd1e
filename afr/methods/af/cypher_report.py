"""`afr cypher`: what AF makes of one Cypher query, as a typed report.

Parse (step 3), the deterministic fixes, and on request steps 4–5 (``ground``) and the
grounding SQL (``sql``) — the same functions and settings as ``afr ask`` runs them, no
LLM and no run log.
"""

from __future__ import annotations

from dataclasses import dataclass

from afr.cypher import QueryGraph
from afr.cypher.fix import FixResult
from afr.errors import AfrError
from afr.ground import compile_grounding, edge_directions, edge_endpoints
from afr.ground.compile import CompiledGrounding
from afr.methods.af.grounding import GroundedCypher, fix_cypher, ground_fixed
from afr.methods.base import Session


@dataclass(frozen=True)
class CypherReport:
    text: str  # the query as read
    graph: QueryGraph  # as parsed
    fixed: FixResult  # the fixes, and the graph they made
    target_type: str | None = None
    grounded: GroundedCypher | None = None  # steps 3–5 (``ground``)
    compiled: CompiledGrounding | None = None  # the grounding SQL (``sql``)


def report_cypher(session: Session, text: str, graph: QueryGraph, *,
                  target_type: str | None = None, ground: bool = False, sql: bool = False,
                  question: str | None = None) -> CypherReport:
    """What AF makes of ``text`` (parsed as ``graph``) with ``session``'s settings, as
    written for ``question`` (its named relations added, as an ask adds them)."""
    node_type = session.schema.node_type(target_type)
    if target_type is not None and node_type is None:
        raise AfrError(f"--target-type {target_type}: not a node type of this SKB (see "
                       "'afr info')")
    fixed = fix_cypher(graph, session.schema, session.catalog, target_type=node_type,
                       enabled=session.settings.af.fix, question=question,
                       store=session.store)
    if not (ground or sql):
        return CypherReport(text, graph, fixed, node_type)
    grounded = ground_fixed(session, fixed, target_type=node_type, question=question)
    compiled = None
    if sql:
        if grounded.query is None:
            raise AfrError("nothing constrains the target: no grounding to do")
        store, af = session.store, session.settings.af
        compiled = compile_grounding(grounded.query, schema_directed=edge_directions(store),
                                     sql=store.sql, k=session.settings.ask.k, l_max=af.l_max, rule=af.schedule,
                                     adjacency=store.has_edge_lists(),
                                     endpoints=edge_endpoints(store),
                                     presence=store.has_edge_presence())
    return CypherReport(text, graph, fixed, node_type, grounded, compiled)
