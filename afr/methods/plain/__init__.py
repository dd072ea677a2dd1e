"""The plain methods (``--method vss``, ``bm25``, ``hybrid``): one list over the answer
type — given, else guessed from the question's words, else every candidate type — with no
Cypher and no grounding (``afr.retrieval.lists``)."""

from __future__ import annotations

from afr.methods.base import Question, Retrieved, Session, Turn
from afr.retrieval.candidate import Strands
from afr.retrieval.linking import guess_target_type
from afr.retrieval.lists import answer_types, plain_list
from afr.vectors.search import query_vector

__all__ = ["PlainRetriever"]


class PlainRetriever:
    def __init__(self, session: Session, method: str) -> None:
        self.session = session
        self.method = method  # vss | bm25 | hybrid

    def retrieve(self, question: Question, turn: Turn) -> Retrieved:
        s = self.session
        target = question.target_type or guess_target_type(question.text, s.schema)
        qvec = query_vector(s.store, s.embedder, question.text)
        with turn.timer.step("7_" + self.method):
            found = tuple(plain_list(s.store, qvec, question.text,
                                     answer_types(target, s.schema), s.settings.ask.k,
                                     self.method, s.settings.ranking, s.settings.bm25))
        vss = tuple((c.node_id, c.vss_score or 0.0) for c in found) \
            if self.method == "vss" else ()
        return Retrieved(found, target, Strands(vss=vss, final=found))
