"""SAGE as a method (``--method sage``): the hybrid list over the target type seeds the
expansion over the similarity graph (``afr.methods.sage.expand``)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

import numpy as np

from afr.methods.base import Question, Retrieved, Session, Turn, answer_target
from afr.methods.sage.expand import SageTrace, expand_list
from afr.retrieval.candidate import Candidate
from afr.retrieval.lists import plain_list
from afr.retrieval.weights import dense_trust
from afr.vectors.search import query_vector

__all__ = ["SageRetriever", "SageTrace", "expand"]


class SageRetriever:
    def __init__(self, session: Session) -> None:
        self.session = session

    def retrieve(self, question: Question, turn: Turn) -> Retrieved:
        s = self.session
        target, types = answer_target(s, question)
        qvec = query_vector(s.store, s.embedder, question.text)
        with turn.timer.step("7_hybrid"):
            seeds = plain_list(s.store, qvec, question.text, types, s.settings.ask.k,
                               "hybrid", s.settings.ranking, s.settings.bm25)
        return expand(s, Retrieved(tuple(seeds), target), question.text, qvec, types, turn)


def expand(session: Session, seeds: Retrieved, question: str, qvec: np.ndarray,
           types: Sequence[str], turn: Turn, *, skip: str | None = None) -> Retrieved:
    """``seeds`` (another method's list) widened by SAGE: the list before step 8, with
    SAGE's trace and notes added. ``skip``: a reason not to expand (the −Edge rule),
    which the ``always`` policy overrides."""
    settings = session.settings
    if settings.sage.policy == "always":
        skip = None  # the paper's "+Edge": expand after a relational Cypher too
    with turn.timer.step("sage_expand"):
        found, trace, notes = expand_list(
            session.store, qvec, question, list(seeds.candidates), settings.ask.k, types,
            settings.sage, params=settings.bm25, skip=skip,
            dense_trust=dense_trust(settings.ranking))
    final: tuple[Candidate, ...] = tuple(found)
    return replace(seeds, candidates=final, strands=replace(seeds.strands, final=final),
                   notes=seeds.notes + tuple(notes), sage=trace)
