"""The Autofocus-Retriever as a method: steps 1–7, each a function with a typed output.

question → ``formalize`` (steps 1–2: ``Formalized``) → ``ground`` (steps 3–5, and the
repair round: ``GroundedCypher``) → ``rank`` (steps 6–7: ``Strands``) → ``Retrieved``.
Step 8 and the run log are the shared finish (``afr.pipeline``).
"""

from __future__ import annotations

import re

import numpy as np

from afr.cypher.model import is_text_condition
from afr.cypher.resolve import ResolvedQuery
from afr.methods.af.focus import constant_nodes, query_focus
from afr.methods.af.formalize import Formalized, formalize
from afr.methods.af.grounding import GroundedCypher, ground_cypher
from afr.methods.af.hybrid_ranking import residual_question
from afr.methods.af.ranking import RANKING_STEPS, RankInput
from afr.methods.af.repair import RepairRound, repair_round, run_outcome
from afr.methods.af.target_names import narrow_by_names
from afr.methods.af.trace import AfTrace
from afr.methods.af.write_cypher import name_examples
from afr.methods.base import Question, Retrieved, Session, Turn
from afr.retrieval.filters import AttributeOrder, attribute_order
from afr.retrieval.lists import answer_types
from afr.retrieval.timing import Timer
from afr.store.base import Store
from afr.vectors.search import query_vector


class AfRetriever:
    def __init__(self, session: Session) -> None:
        self.session = session

    def retrieve(self, question: Question, turn: Turn) -> Retrieved:
        formalized = formalize(self.session, question, turn)
        grounded, repair, cypher = self.ground_and_repair(question, formalized, turn)
        target_type = formalized.target_type or grounded.resolved.target_type
        inp = self.rank_input(question.text, grounded, target_type, formalized)
        ranking = self.session.settings.af.ranking
        strands = RANKING_STEPS[ranking].rank(self.session.store, inp, timer=turn.timer)
        outcome = run_outcome(
            fixes=len(grounded.fixes), repaired=bool(repair and repair.used),
            grounded=len(inp.grounded), top_vss=strands.vss[0][1] if strands.vss else None,
            weak_vss=self.session.settings.af.weak_vss, relaxed=grounded.relaxed is not None)
        trace = AfTrace(formalized, grounded, repair, cypher, ranking, inp, outcome)
        failures = formalized.fallbacks + ((repair.failure,) if repair and repair.failure
                                           else ())
        notes = [f.note for f in formalized.fallbacks] + list(formalized.notes)
        if grounded.relaxed is not None:
            notes.append(grounded.relaxed.note)
        if repair is not None and repair.failure is not None:
            notes.append(repair.note)
        return Retrieved(strands.final, target_type, strands,
                         tuple(notes) + inp.notes + strands.notes, failures,
                         keep_names=self.keep_names(grounded),
                         focus=query_focus(grounded, self.session.schema), af=trace)

    def ground_and_repair(self, question: Question, formalized: Formalized, turn: Turn
               ) -> tuple[GroundedCypher, RepairRound | None, str]:
        """Steps 3–5 of the formalized Cypher, and the repair round when it needs one:
        (what grounded, the round, the Cypher used)."""
        # The question's own words check the relations of a Cypher it did not write
        # (the offline formalizer's are read from those words already).
        question_text = question.text if formalized.by != "offline" else None
        grounded = ground_cypher(self.session, formalized.cypher,
                                 target_type=formalized.target_type, timer=turn.timer,
                                 question=question_text)
        # The repair round rewrites the LLM's own Cypher; a given (replayed, hand-written)
        # query only when asked for explicitly (--repair).
        repair_setting = self.session.settings.af.repair
        wanted = repair_setting is True or (repair_setting is None and formalized.by != "given")
        # (The offline formalizer's Cypher, after steps 1–2 fell back, is not the LLM's.)
        if turn.llm is None or formalized.by == "offline" or not wanted:
            return grounded, None, formalized.cypher
        return self._repair(question.text, formalized, grounded, turn)

    def _repair(self, question: str, formalized: Formalized, grounded: GroundedCypher,
                turn: Turn) -> tuple[GroundedCypher, RepairRound | None, str]:
        """Step 3c: at most one repair call (``afr.methods.af.repair``)."""
        s = self.session
        examples = s.once("name_examples", lambda: name_examples(s.store))
        scratch = Timer({})  # the reply's steps 3–5 count in 3_repair, not twice
        with turn.timer.step("3_repair"):
            done, used = repair_round(
                turn.llm, question, formalized.cypher, grounded, s.schema,
                ground=lambda text: ground_cypher(s, text, target_type=formalized.target_type,
                                                  timer=scratch, question=question),
                target_type=formalized.target_type, examples=examples,
                l_max=s.settings.af.l_max, model=s.settings.llm.steps.cypher.model,
                effort=s.settings.llm.steps.cypher.effort,
                prompts_dir=s.settings.prompts.dir)
        if done is None:
            del turn.timer.timings["3_repair"]
            return grounded, None, formalized.cypher
        return used, done, (done.cypher or formalized.cypher) if done.used \
            else formalized.cypher

    def keep_names(self, grounded: GroundedCypher) -> frozenset[str]:
        """What step 8's shrunk descriptions keep (``rerank.overflow``): the relation lines
        naming the query's names, or its other symbols' retrieved candidates."""
        if self.session.settings.rerank.overflow == "candidates":
            return _candidate_names(self.session.store, grounded)
        return _names(grounded.resolved)

    def rank_input(self, question: str, grounded: GroundedCypher, target_type: str | None,
                   formalized: Formalized) -> RankInput:
        s = self.session
        answers = grounded.result.answers if grounded.result else []
        target = grounded.resolved.symbols.get(grounded.resolved.target or "")
        narrowed = narrow_by_names(s.store, answers, target.target_names if target else [])
        used = grounded.relaxed.query if grounded.relaxed else grounded.resolved  # grounded
        orders = _unmet_orders(s, question, grounded, target_type)
        said = tuple(f"{o.path} {o.op} {o.value:g}: met by no answer; used as a ranking "
                     "signal (the nearest to it first)" for o in orders)
        return RankInput(
            question, query_vector(s.store, s.embedder, question), narrowed.grounded,
            tuple(answer_types(target_type, s.schema)), s.settings.ask.k,
            s.settings.graph_quota, formalized.link_confidence,
            tuple(_target_text_conditions(grounded)), grounded.query, s.settings.af.l_max,
            s.settings.ranking, s.settings.bm25, name_signals=narrowed.signals,
            notes=narrowed.notes + said, schedule=s.settings.af.schedule,
            step6_order=s.settings.af.step6_order,
            topup_excludes=s.settings.af.topup_excludes,
            text_only=_text_only(used), residual=_residual(s, question, used),
            orders=orders)


def _residual(s: Session, question: str, query: ResolvedQuery
              ) -> tuple[str, np.ndarray] | None:
    """The question without the names of the constants every grounded answer meets (those
    of ``query``, the part grounded when the query was relaxed), and its vector; None when
    the question names none of them."""
    names = [n for sym in query.symbols.values() if sym.var != query.target
             for n in sym.search_strings]
    rest = residual_question(question, names)
    return None if rest == question else (rest, query_vector(s.store, s.embedder, rest))


def _unmet_orders(s: Session, question: str, grounded: GroundedCypher,
                  target_type: str | None) -> tuple[AttributeOrder, ...]:
    """The target's number comparisons the relaxed grounding left out, where the question's
    words name the attribute ("more than 500 senses" for "more than 50 senses": the
    number is wrong, the attribute asked for), as orders for the ranking. One the
    question does not name is an LLM's addition, and no evidence."""
    target = grounded.resolved.symbols.get(grounded.resolved.target or "")
    if grounded.relaxed is None or target is None or s.settings.af.ranking != "hybrid":
        return ()
    kept = grounded.relaxed.query.symbols.get(target.var)
    said = {w[:5] for w in re.findall(r"[a-z]{4,}", question.lower())}
    orders = []
    for cond in target.conditions:
        if kept is not None and cond in kept.conditions:
            continue
        order = attribute_order(s.catalog, target_type, cond)
        if order is not None and any(w[:5] in said for w in re.split(r"[\W_]+", order.path)
                                     if len(w) > 3):
            orders.append(order)
    return tuple(orders)


def _candidate_names(store: Store, grounded: GroundedCypher) -> frozenset[str]:
    """The names of the retrieved candidates of the query's other symbols, those in scope
    at the grounding's last level (the paper's overflow rule keeps the relations to
    them)."""
    ids = constant_nodes(grounded)
    return frozenset(d.name for d in store.node_details(ids).values() if d.name)


def _target_text_conditions(grounded: GroundedCypher) -> list:
    """The target's text conditions the grounding did not apply (the ranking weighs
    them)."""
    target = grounded.resolved.target
    cands = grounded.symbols.get(target) if target else None
    if cands is None or cands.texts_applied:
        return []
    return list(cands.texts)


def _text_only(resolved: ResolvedQuery) -> bool:
    """Whether the query's only constraints are text conditions on its target."""
    target = resolved.symbols.get(resolved.target or "")
    if resolved.triplets or target is None or target.is_constant or target.name_patterns \
            or target.target_names:
        return False
    return bool(target.conditions) and all(is_text_condition(c) for c in target.conditions)


def _names(resolved: ResolvedQuery | None) -> frozenset[str]:
    """The names the query searches: the reranker's shrunk descriptions keep them."""
    if resolved is None:
        return frozenset()
    return frozenset(s for sym in resolved.symbols.values() for s in sym.search_strings)
