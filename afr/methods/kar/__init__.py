"""KAR as a method (``--method kar``): query expansion from the knowledge graph around the
question's entities, then dense retrieval (``afr.methods.kar.run``)."""

from __future__ import annotations

from afr.methods.base import Question, Retrieved, Session, Turn
from afr.methods.kar.parse import document_structures
from afr.methods.kar.run import KarTrace, run_kar
from afr.retrieval.candidate import Strands
from afr.retrieval.linking import guess_target_type
from afr.retrieval.lists import answer_types

__all__ = ["KarRetriever", "KarTrace"]


class KarRetriever:
    def __init__(self, session: Session) -> None:
        self.session = session

    def retrieve(self, question: Question, turn: Turn) -> Retrieved:
        s = self.session
        target = question.target_type or guess_target_type(question.text, s.schema)
        types = answer_types(target, s.schema)
        structures = s.once("kar_structures", lambda: document_structures(s.store, s.schema)) \
            if turn.llm is not None else None
        run = run_kar(s.store, s.schema, s.embedder, question.text, types, s.settings.ask.k,
                      llm=turn.llm, structures=structures, settings=s.settings.kar,
                      timer=turn.timer, prompts_dir=s.settings.prompts.dir)
        candidates = tuple(run.candidates)
        notes = tuple(f.note for f in run.fallbacks) + tuple(run.warnings)
        return Retrieved(candidates, target, Strands(vss=tuple(run.base), final=candidates),
                         notes, tuple(run.fallbacks), kar=run)
