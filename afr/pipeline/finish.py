"""The finish every method shares: step 8 (the LLM reranks the list), the answers, the run
log. ``finish`` builds the one ``AskResult`` of a question from what the method found."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from afr.errors import LLMError, StoreError
from afr.llm.fallback import Fallback
from afr.methods.base import Question, Retrieved, Session, Turn
from afr.pipeline.rerank import rerank
from afr.pipeline.result import AskResult, RankedAnswer
from afr.pipeline.runs import write_run
from afr.retrieval.candidate import Candidate
from afr.retrieval.timing import Timer
from afr.store.base import NodeDetails
from afr.vectors.descriptions import NO_FOCUS, Focus
from afr.vectors.documents import RERANK_CAPS
from afr.vectors.search import save_query_vectors

STEP_8 = "step 8"
KEPT_ORDER = "answers keep the retrieval order"


@dataclass(frozen=True)
class Reranked:
    """Step 8's outcome: the new positions (None: the list keeps its order)."""

    positions: dict[int, int] | None = None
    prompts: int = 0
    unusable: int = 0  # replies that named no candidate (or no score): the order stays
    notes: tuple[str, ...] = ()
    fallback: Fallback | None = None
    replies: int = 0
    overflows: tuple[str, ...] = ()  # "full", "related": which descriptions did not fit


def rerank_list(llm: Any, session: Session, question: str, candidates: Sequence[Candidate],
                *, method: str, keep_names: frozenset[str] = frozenset(),
                details: dict[int, NodeDetails] | None = None,
                timer: Timer | None = None, focus: Focus = NO_FOCUS) -> Reranked:
    """Step 8 on ``candidates`` with reranker ``method`` (no LLM, ``none`` or an empty list:
    nothing to do); ``timer`` gets ``8_rerank`` only when the LLM reranked. ``focus``: what
    the focused descriptions state first (``rerank.documents = "focused"``)."""
    if llm is None or method == "none" or not candidates:
        return Reranked()
    store, settings = session.store, session.settings
    ids = [c.node_id for c in candidates]
    details = details if details is not None else store.node_details(ids)
    timer = timer or Timer({})
    try:
        with timer.step("8_rerank"):
            outcome = rerank(llm, store, question, ids, method=method,
                             node_types={i: d.type for i, d in details.items()},
                             keep_names=set(keep_names),
                             with_relations=settings.rerank.with_relations,
                             concurrency=settings.rerank.concurrency,
                             model=settings.llm.steps.rerank.model,
                             effort=settings.llm.steps.rerank.effort,
                             prompts_dir=settings.prompts.dir,
                             caps=RERANK_CAPS[settings.rerank.documents], focus=focus)
    except LLMError as exc:
        timer.timings["8_llm_failed"] = timer.timings.pop("8_rerank", 0.0)
        return Reranked(fallback=Fallback.of(exc, STEP_8, KEPT_ORDER))
    notes = tuple(outcome.notes)
    if outcome.replies and not outcome.usable:
        # Not one reply named a candidate: the LLM did not rerank, whatever it was sent.
        timer.timings["8_llm_failed"] = timer.timings.pop("8_rerank", 0.0)
        return Reranked(None, outcome.prompts, outcome.unparsed, notes, Fallback.unusable(
            STEP_8, f"{outcome.unparsed} of {outcome.replies} rerank replies named no "
            "candidate", KEPT_ORDER), outcome.replies)
    if outcome.unparsed:
        notes += (f"step 8: {outcome.unparsed} of {outcome.replies} rerank replies could not "
                  "be read; their candidates kept the retrieval order",)
    overflows = tuple(name for name, hit in (("full", outcome.overflow_full),
                                             ("related", outcome.overflow_related)) if hit)
    return Reranked({node: pos for pos, node in enumerate(outcome.order, 1)},
                    outcome.prompts, outcome.unparsed, notes, replies=outcome.replies,
                    overflows=overflows)


def finish(session: Session, question: Question, found: Retrieved, turn: Turn, *,
           run_id: str, eval_id: str | None = None, question_id: str | None = None
           ) -> AskResult:
    """Step 8, the answers and the log: the question's result."""
    store, settings = session.store, session.settings
    details = store.node_details([c.node_id for c in found.candidates])
    reranked = rerank_list(turn.llm, session, question.text, found.candidates,
                           method=settings.rerank.method, keep_names=found.keep_names,
                           details=details, timer=turn.timer, focus=found.focus)
    fallbacks = found.fallbacks + ((reranked.fallback,) if reranked.fallback else ())
    llm = turn.llm
    result = AskResult(
        run_id, question.text, "offline" if session.llm is None else "llm", settings, found,
        ranked_answers(found.candidates, reranked.positions, details),
        turn.timer.timings,
        _offline_why(session) + found.notes + reranked.notes
        + ((reranked.fallback.note,) if reranked.fallback else ()),
        fallbacks, llm.calls if llm else 0, llm.new_calls if llm else 0,
        llm.new_tokens if llm else 0, llm.tokens if llm else 0, reranked.prompts,
        reranked.unusable, rerank_replies=reranked.replies,
        reranked=reranked.positions is not None, dense_from=session.dense_from,
        hybrid_dense_from=session.hybrid_dense_from,
        logged=settings.ask.log, llm_input_tokens=llm.input_tokens if llm else 0,
        llm_output_tokens=llm.output_tokens if llm else 0,
        rerank_overflows=reranked.overflows)
    if settings.ask.log:
        try:
            write_run(store, result, eval_id=eval_id, question_id=question_id)
        except StoreError as exc:
            if eval_id is not None:  # an evaluation needs its log to resume: stop
                raise
            # The answers are found; a store that cannot take the log (full disk,
            # read-only) should not cost the user them.
            result = _unlogged(result, exc)
    save_query_vectors(store)  # after the answers, like the log
    return result


def _offline_why(session: Session) -> tuple[str, ...]:
    """Why a session with an LLM set up halfway runs offline (a URL and no model …)."""
    why = session.settings.llm.incomplete if session.llm is None else None
    return (f"offline: {why}",) if why else ()


def _unlogged(result: AskResult, exc: StoreError) -> AskResult:
    from dataclasses import replace

    return replace(result, warnings=result.warnings + (f"this run was not logged ({exc})",),
                   logged=False)


def ranked_answers(candidates: Sequence[Candidate], positions: dict[int, int] | None,
                   details: dict[int, NodeDetails]) -> tuple[RankedAnswer, ...]:
    """The final list: in step 8's order when it reranked, else as retrieved."""
    order = sorted(candidates, key=lambda c: positions[c.node_id]) if positions \
        else list(candidates)
    out = []
    for rank, c in enumerate(order, 1):
        d = details[c.node_id]
        out.append(RankedAnswer(rank, c.node_id, d.ext_id, d.name, d.type, c.source, c.level,
                                c.vss_score, positions.get(c.node_id) if positions else None,
                                c.provenance))
    return tuple(out)
