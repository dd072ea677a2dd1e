"""Steps 1–2: the answer type and the Cypher query of a question.

With an LLM: step 1 predicts the target type (skipped when the SKB has one candidate
type), step 2 writes the Cypher. Without one, or when a call fails, the offline
formalizer writes both (``afr.methods.af.offline``) and a ``Fallback`` says so. A
replayed or hand-written query (``Question.cypher``) replaces both steps.
"""

from __future__ import annotations

from dataclasses import dataclass

from afr.errors import LLMError
from afr.llm.fallback import Fallback
from afr.methods.af.offline import formalize as formalize_offline
from afr.methods.af.target_type import predict_target_type
from afr.methods.af.write_cypher import name_examples, write_cypher
from afr.methods.base import Question, Session, Turn
from afr.retrieval.timing import Timer
from afr.text import clean_text, gist

STEP_1 = "step 1"
STEPS_1_2 = "steps 1–2"


@dataclass(frozen=True)
class Formalized:
    """Steps 1–2's output."""

    target_type: str | None
    cypher: str
    by: str  # llm | offline | given
    link_confidence: float = 1.0  # how far the Cypher is trusted (offline guesses: less)
    notes: tuple[str, ...] = ()
    fallbacks: tuple[Fallback, ...] = ()


def formalize(session: Session, question: Question, turn: Turn) -> Formalized:
    """The question's target type and Cypher (see the module docstring)."""
    if question.cypher is not None:
        return Formalized(question.target_type, clean_text(question.cypher), "given")
    target_type = None
    fallbacks: tuple[Fallback, ...] = ()
    if turn.llm is not None:
        try:
            return _with_llm(session, question.text, turn)
        except _Failed as failed:
            target_type, fallbacks = failed.target_type, (failed.fallback,)
    with turn.timer.step("2_cypher"):
        offline = formalize_offline(session.store, question.text, session.schema,
                                    session.catalog,
                                    read_class=session.settings.af.offline_class)
    return Formalized(target_type or offline.target_type, offline.cypher, "offline",
                      offline.confidence, tuple(offline.notes), fallbacks)


class _Failed(Exception):
    def __init__(self, target_type: str | None, fallback: Fallback) -> None:
        self.target_type, self.fallback = target_type, fallback


def _with_llm(session: Session, question: str, turn: Turn) -> Formalized:
    schema, steps = session.schema, session.settings.llm.steps
    prompts_dir = session.settings.prompts.dir
    timer, target_type, reply = turn.timer, None, None
    try:
        with timer.step("1_target_type"):
            if len(schema.candidate_types) == 1:
                target_type = schema.candidate_types[0]
            else:
                target_type, reply = predict_target_type(
                    turn.llm, question, schema, model=steps.target.model,
                    effort=steps.target.effort, prompts_dir=prompts_dir)
        unusable = _no_type(reply, timer) if reply is not None and not target_type else None
        with timer.step("2_cypher"):
            examples = session.once("name_examples", lambda: name_examples(session.store))
            cypher = write_cypher(turn.llm, question, schema, target_type, examples,
                                  model=steps.cypher.model, effort=steps.cypher.effort,
                                  prompts_dir=prompts_dir,
                                  hidden=session.settings.af.hide_types)
    except LLMError as exc:
        # The time went to the LLM's failure, not to a step that produced anything (a
        # target type found in step 1 stays, with its timing).
        failed = ("2_cypher",) if target_type else ("1_target_type", "2_cypher")
        lost = sum(timer.timings.pop(s, 0.0) for s in (*failed, "1-2_llm_failed"))
        timer.timings["1-2_llm_failed"] = round(lost, 6)
        raise _Failed(target_type, Fallback.of(
            exc, STEPS_1_2, "using the offline formalizer for this question")) from None
    return Formalized(target_type, cypher, "llm", fallbacks=(unusable,) if unusable else ())


def _no_type(reply: str, timer: Timer) -> Fallback:
    """Step 1's reply named no node type of the SKB: a failed step (its time is the
    LLM's loss); step 2 goes on without a target type, which the Cypher's RETURN gives."""
    timer.timings["1-2_llm_failed"] = round(timer.timings.pop("1_target_type", 0.0), 6)
    return Fallback.unusable(STEP_1, f"the reply names no answer type of this SKB: "
                             f"{gist(reply)}", "the answer type is read from the Cypher")
