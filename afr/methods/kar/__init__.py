"""KAR as a method (``--method kar``): query expansion from the knowledge graph around the
question's entities, then dense retrieval (``afr.methods.kar.run``)."""

from __future__ import annotations

from afr.methods.base import Question, Retrieved, Session, Turn, answer_target
from afr.methods.kar.parse import document_structures
from afr.methods.kar.run import KarTrace, run_kar
from afr.retrieval.candidate import Strands

__all__ = ["KarRetriever", "KarTrace"]


class KarRetriever:
    def __init__(self, session: Session) -> None:
        self.session = session

    def retrieve(self, question: Question, turn: Turn) -> Retrieved:
        s = self.session
        target, types = answer_target(s, question)
        structures = s.once("kar_structures", lambda: document_structures(s.store, s.schema)) \
            if turn.llm is not None else None
        run = run_kar(s, question.text, types, turn, structures)
        candidates = tuple(run.candidates)
        notes = tuple(f.note for f in run.fallbacks) + tuple(run.warnings)
        return Retrieved(candidates, target, Strands(vss=tuple(run.base), final=candidates),
                         notes, tuple(run.fallbacks), kar=run)
