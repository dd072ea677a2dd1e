"""The plain methods (``--method vss``, ``bm25``, ``hybrid``): one list over the answer
type — given, else guessed from the question's words, else every candidate type — with no
Cypher and no grounding (``afr.retrieval.lists``)."""

from __future__ import annotations

from afr.methods.base import Question, Retrieved, Session, Turn, answer_target
from afr.retrieval.candidate import Strands
from afr.retrieval.lists import plain_list
from afr.vectors.search import query_vector

__all__ = ["PlainRetriever"]


class PlainRetriever:
    def __init__(self, session: Session, method: str) -> None:
        self.session = session
        self.method = method  # vss | bm25 | hybrid

    def retrieve(self, question: Question, turn: Turn) -> Retrieved:
        s = self.session
        target, types = answer_target(s, question)
        qvec = query_vector(s.store, s.embedder, question.text)
        with turn.timer.step("7_" + self.method):
            found = tuple(plain_list(s.store, qvec, question.text, types, s.settings.ask.k,
                                     self.method, s.settings.ranking, s.settings.bm25))
        vss = tuple((c.node_id, c.vss_score or 0.0) for c in found) \
            if self.method == "vss" else ()
        return Retrieved(found, target, Strands(vss=vss, final=found))
