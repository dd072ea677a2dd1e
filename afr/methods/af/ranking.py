"""Steps 6–7, written once: the two rankings of the grounded answers behind one protocol.

``paper``: graph answers first by (level, similarity), topped up by vector search
(``afr.methods.af.paper_ranking``); ``hybrid``: the graph strand fused with similarity and
BM25 (``afr.methods.af.hybrid_ranking``). ``afr ask`` runs the configured one; ``afr
eval`` computes its variants (the other ranking, the whole step 6 list, the alpha sweep)
with the same functions, from the ``RankInput`` the ask kept.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import partial
from typing import Protocol

import numpy as np

from afr.cypher.model import Condition
from afr.ground import GroundingQuery
from afr.methods.af.grounding import with_provenance
from afr.methods.af.hybrid_ranking import hybrid_strands
from afr.methods.af.paper_ranking import combine, graph_strand, graph_strand_all
from afr.retrieval.candidate import Candidate, Strands
from afr.retrieval.filters import AttributeOrder
from afr.retrieval.lists import vss_strand
from afr.retrieval.timing import Timer
from afr.settings import BM25Settings, RankingSettings
from afr.store.base import Store


@dataclass(frozen=True)
class RankInput:
    """What steps 6–7 rank: the grounded answers of one question, and its settings."""

    question: str
    qvec: np.ndarray
    grounded: tuple[tuple[int, int], ...]  # (node id, level)
    types: tuple[str, ...]  # the answer types searched
    k: int
    quota: int  # round(alpha · k): answers the graph strand keeps
    confidence: float  # how far the Cypher is trusted (the offline formalizer's: less)
    text: tuple[Condition, ...]  # the target's text conditions no filter applied
    query: GroundingQuery | None  # for provenance (None: nothing was grounded)
    l_max: int
    ranking: RankingSettings
    bm25: BM25Settings
    # a related target's name conditions that filtered nothing: ranking signals (hybrid)
    name_signals: tuple[str, ...] = ()
    notes: tuple[str, ...] = ()  # what the target's name conditions did
    schedule: str = "reference"  # af.schedule (the levels provenance reports)
    step6_order: str = "level"  # af.step6_order (paper ranking)
    topup_excludes: str = "taken"  # af.topup_excludes (paper ranking)
    text_only: bool = False  # the Cypher's only constraints: text conditions on the target
    # the question without the names its constants search for, and its vector: what
    # tells the grounded answers apart (None: the question names no constant)
    residual: tuple[str, np.ndarray] | None = None
    # comparisons on the target that grounded nothing and the question's words name: the
    # answers nearest to meeting them rank first (hybrid)
    orders: tuple[AttributeOrder, ...] = ()


class Ranking(Protocol):
    def rank(self, store: Store, inp: RankInput, *, explain: bool = True,
             timer: Timer | None = None) -> Strands:
        """Steps 6–7; ``explain``: set the graph answers' provenance."""

    def graph_list(self, store: Store, inp: RankInput, strands: Strands) -> list[Candidate]:
        """Every grounded answer in step 6's order (the evaluation's "1-6")."""


class PaperRanking:
    def rank(self, store: Store, inp: RankInput, *, explain: bool = True,
             timer: Timer | None = None) -> Strands:
        timer = timer or Timer({})
        quota = max(inp.quota, 0)
        with timer.step("6_vss_grounded"):
            # sized to what the list uses: the quota, and the top k for provenance
            graph = graph_strand(store, inp.qvec, inp.grounded, max(quota, inp.k if explain
                                                                     else 0),
                                 order=inp.step6_order)
        notes: list[str] = []
        if explain and inp.query is not None and graph:
            with timer.step("provenance"):
                graph, notes = with_provenance(store, inp.query, graph, k=inp.k,
                                               l_max=inp.l_max, rule=inp.schedule)
        part = graph[:quota]
        with timer.step("7_vss_topup"):
            excluded = _excluded(inp)
            vss = vss_strand(store, inp.qvec, inp.types, inp.k + len(part) + len(excluded))
            final = combine(part, vss, inp.k, exclude=excluded)
        return Strands(tuple(graph), tuple(vss), (), tuple(final), tuple(notes))

    def graph_list(self, store: Store, inp: RankInput, strands: Strands) -> list[Candidate]:
        return graph_strand_all(store, inp.qvec, inp.grounded, order=inp.step6_order)


def _excluded(inp: RankInput) -> frozenset[int]:
    """What step 7's top-up may not add besides the answers taken: all of C_cypher under
    Algorithm 1 line 12 (``af.topup_excludes = "cypher"``), else nothing."""
    return frozenset(n for n, _ in inp.grounded) if inp.topup_excludes == "cypher" \
        else frozenset()


class HybridRanking:
    def rank(self, store: Store, inp: RankInput, *, explain: bool = True,
             timer: Timer | None = None) -> Strands:
        timer = timer or Timer({})
        explainer: Callable | None = None
        if explain and inp.query is not None:
            # the graph answers' provenance, on the connection that ranked them, while
            # the other one runs the question's vector search
            explainer = partial(_provenance_on, query=inp.query, k=inp.k, l_max=inp.l_max,
                                rule=inp.schedule)
        with timer.step("6_7_hybrid"):
            return hybrid_strands(store, inp.qvec, inp.question, inp.grounded, inp.types,
                                  inp.k, weights=inp.ranking, params=inp.bm25,
                                  confidence=inp.confidence, text=inp.text,
                                  signals=inp.name_signals, keep_graph=inp.quota,
                                  text_only=inp.text_only, residual=inp.residual,
                                  explain=explainer, orders=inp.orders)

    def graph_list(self, store: Store, inp: RankInput, strands: Strands) -> list[Candidate]:
        return list(strands.graph)  # the hybrid ranking orders every grounded answer


def _provenance_on(conn: Store, graph: list[Candidate], *, query: GroundingQuery, k: int,
             l_max: int, rule: str) -> tuple[list[Candidate], list[str]]:
    return with_provenance(conn, query, graph, k=k, l_max=l_max, rule=rule)


# steps 6–7 by the name of their ranking (af.ranking)
RANKING_STEPS: dict[str, Ranking] = {"paper": PaperRanking(), "hybrid": HybridRanking()}


def recombine(store: Store, strands: Strands, qvec: np.ndarray, types: Sequence[str], k: int,
              alpha: float, inp: RankInput | None = None) -> list[Candidate]:
    """Step 7 with another share of graph answers (the evaluation's alpha sweep): the
    ranked graph strand's first round(alpha · k), topped up by vector search (skipping
    what ``inp``'s top-up rule skips)."""
    quota = round(alpha * k)
    graph = list(strands.graph[:quota])
    excluded = _excluded(inp) if inp is not None else frozenset()
    vss = list(strands.vss)
    if len(vss) < k + len(graph) + len(excluded):
        # the ask fetched only as much plain search as its own alpha needed
        vss = vss_strand(store, qvec, types, k + len(graph) + len(excluded))
    return combine(graph, vss, k, exclude=excluded)
