"""``--method af+sage``: AF's steps 1–7 seed SAGE's expansion — a composition of the two
methods, each unchanged. A relational Cypher whose graph strand filled its quota keeps
AF's list (the −Edge rule, ``afr.methods.sage.expand.relational_skip``)."""

from __future__ import annotations

from afr.methods.af.retriever import AfRetriever
from afr.methods.base import Question, Retrieved, Session, Turn
from afr.methods.sage import expand
from afr.methods.sage.expand import relational_skip


class AfSageRetriever:
    def __init__(self, session: Session) -> None:
        self.session = session
        self.af = AfRetriever(session)

    def retrieve(self, question: Question, turn: Turn) -> Retrieved:
        found = self.af.retrieve(question, turn)
        trace = found.af
        assert trace is not None
        inp = trace.rank_input
        skip = relational_skip(triplets=len(trace.grounded.resolved.triplets),
                               grounded=len(inp.grounded), quota=inp.quota)
        return expand(self.session, found, question.text, inp.qvec, inp.types, turn,
                      skip=skip)
