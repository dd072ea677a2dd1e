"""`afr eval`: a question set through one Pipeline — resumable, concurrent, in the store.

Each question is asked once (``Pipeline.ask`` with the eval's id, so its run-log rows are
tied to the eval); the ablation variants and sweeps are derived from that one ask
(``afr.evaluate.variants``). Per question, ``eval_results`` gets the final ranked ext_ids,
gold, metrics, timings and LLM cost, and ``eval_variants`` one ranked list per variant,
written together in one transaction — so a run killed at any moment resumes from the
questions whose rows are there. Questions that failed or were degraded by an LLM failure
are asked again on resume; LLM calls already made are answered by the ``llm_calls`` cache.

A dead LLM stops the run: after ``max_llm_failures`` questions in a row lost to an
unreachable, unanswering or refusing endpoint, no new question starts and the run is left
``interrupted``, to be resumed once the endpoint is back.
"""

from __future__ import annotations

import json
import queue
import sys
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from afr.cypher import parse_cypher
from afr.errors import AfrError
from afr.evaluate.eval_runs import EvalRun, claim_eval_run, set_status
from afr.evaluate.metrics import question_metrics
from afr.evaluate.questions import Question
from afr.evaluate.report import store_summary
from afr.evaluate.variants import FINAL, AskedAs, VariantMaker, variant_names
from afr.llm.fallback import LOST as LOST_TO_LLM
from afr.pipeline.result import AskResult
from afr.store.base import Store
from afr.store.skb import SkbSchema

Note = Callable[[str], None]
MAX_LLM_FAILURES = 5


@dataclass
class Outcome:
    question_id: str
    status: str  # ok | degraded | failed
    metrics: dict[str, float]
    error: str | None = None
    llm_failure: str | None = None  # AskResult.llm_failure and .llm_error
    llm_error: str | None = None


@dataclass
class RunReport:
    run: EvalRun
    done: int  # questions with results, this session and before
    asked: int  # questions asked in this session
    interrupted: bool = False
    notes: list[str] = field(default_factory=list)
    # Questions in a row, up to the last one asked, lost to the LLM (LOST_TO_LLM), the
    # gravest kind among them and the last one's error.
    llm_lost: int = 0
    llm_lost_kind: str | None = None
    llm_lost_error: str | None = None
    stopped_for_llm: bool = False  # the run stopped after max_llm_failures of them

    @property
    def all_lost_to_llm(self) -> bool:
        """Every question asked in this session was lost to the LLM."""
        return self.asked > 0 and self.llm_lost >= self.asked


class Evaluator:
    """Asks the questions of one eval run and stores what came out."""

    def __init__(self, store: Store, pipeline: Any, run: EvalRun,
                 questions: list[Question], *, note: Note | None = None,
                 max_llm_failures: int = MAX_LLM_FAILURES) -> None:
        self.store = store
        self.max_llm_failures = max_llm_failures  # 0: never stop
        self.pipeline = pipeline
        self.run = run
        self.questions = questions
        self.note = note or (lambda message: None)
        self.settings = run.settings
        self.names = variant_names(self.settings.sweeps)
        self.maker = VariantMaker(pipeline, self.settings.sweeps)
        if self.settings.replay:
            missing = [q.id for q in questions if self.settings.replay not in q.extras]
            if missing:
                raise AfrError(f"--replay {self.settings.replay}: the question file has no "
                               f"column {self.settings.replay!r}")
        self.candidate_gold = self._check_gold()

    # -- gold ids ------------------------------------------------------------------------

    def _check_gold(self) -> set[str]:
        """Gold ids that are nodes of a candidate type; the others cannot be retrieved and
        are left out of recall's denominator (STaRK's rule)."""
        wanted = sorted({g for q in self.questions for g in q.answer_ids})
        found: dict[str, bool] = {}
        for start in range(0, len(wanted), 10000):
            for ext_id, _type, is_candidate in self.store.run(
                    "eval/gold_nodes.sql", {"ext_ids": wanted[start:start + 10000]}):
                found[str(ext_id)] = bool(is_candidate)
        unknown = [g for g in wanted if g not in found]
        if wanted and len(unknown) == len(wanted):
            raise AfrError(f"none of the {len(wanted)} gold ids is a node of this store "
                           f"(e.g. {unknown[:3]}); is this the store of that SKB?")
        if unknown:
            self.note(f"{len(unknown)} of {len(wanted)} gold ids are not nodes of this store "
                      f"and count as outside the candidate set, e.g. {unknown[:3]}")
        outside = [g for g, cand in found.items() if not cand]
        if outside:
            self.note(f"{len(outside)} gold ids are nodes of non-candidate types and are "
                      f"ignored, e.g. {outside[:3]}")
        return {g for g, cand in found.items() if cand}

    # -- the run -------------------------------------------------------------------------

    def previous(self) -> dict[str, tuple[str, dict[str, float]]]:
        rows = self.store.run("eval/results.sql", {"eval_id": self.run.eval_id})
        return {str(r.question_id): (r.status or "ok", r.metrics or {}) for r in rows}

    def left(self) -> int:
        """The questions this session will ask (a resume skips those done)."""
        return len(self._todo()[1])

    def execute(self, *, progress: bool = False) -> RunReport:
        keep, todo = self._todo()
        final_metrics = [m for _, m in keep.values()]
        claim_eval_run(self.store, self.run)  # running, in this process
        report = RunReport(self.run, len(keep), 0)
        bar = _progress_bar(len(self.questions), len(keep), progress)
        _postfix(bar, final_metrics)
        feed, results = _Feed(todo), queue.Queue()
        workers = self._start_workers(feed, results, report, len(todo))
        try:
            fatal = self._collect(workers, feed, results, report, bar, final_metrics)
        finally:
            bar.close()
        return self._close(report, fatal)

    def _todo(self) -> tuple[dict[str, tuple[str, dict[str, float]]], list[tuple[int, Question]]]:
        """(the stored questions kept, the questions to ask with their positions): failed
        or LLM-degraded questions get another try; everything else is kept."""
        wanted = {q.id for q in self.questions}
        keep = {qid: v for qid, v in self.previous().items()
                if qid in wanted and v[0] not in ("failed", "degraded")}
        return keep, [(pos, q) for pos, q in enumerate(self.questions) if q.id not in keep]

    def _start_workers(self, feed: _Feed, results: queue.Queue, report: RunReport,
                       todo: int) -> list[threading.Thread]:
        """Threads that ask the feed's questions and put what happened on ``results``:
        ("done", outcome), ("stopped", None) when the LLM is lost, ("fatal", exception)
        when the store fails, ("exit", None) at the end."""
        def worker() -> None:
            with self.store.gathering():  # Spark: reads of the batch run as one job
                if ask_from(feed):
                    results.put(("exit", None))

        def ask_from(feed: _Feed) -> bool:
            """False when a store failure ended it (then "fatal" was put)."""
            while (item := feed.next()) is not None:
                try:
                    outcome = self._one(*item)
                except BaseException as exc:  # noqa: BLE001 - a store failure stops the run
                    feed.stop.set()
                    results.put(("fatal", exc))
                    return False
                with feed.lock:  # counted before this worker takes the next question
                    if self._count_llm_loss(report, outcome) and not feed.stop.is_set():
                        feed.stop.set()
                        report.interrupted = report.stopped_for_llm = True
                        results.put(("stopped", None))
                results.put(("done", outcome))
            return True

        # a store that runs a batch's reads together asks a batch at once
        at_once = max(self.settings.concurrency, self.store.question_batch)
        workers = [threading.Thread(target=worker, daemon=True, name=f"afr-eval-{i}")
                   for i in range(max(1, min(at_once, todo or 1)))]
        for t in workers:
            t.start()
        return workers

    def _collect(self, workers: list[threading.Thread], feed: _Feed, results: queue.Queue,
                 report: RunReport, bar: Any, final_metrics: list[dict[str, float]]
                 ) -> BaseException | None:
        """Take the workers' results until all have ended (or a second Ctrl-C); the first
        store failure, if any."""
        running, fatal, interrupts = len(workers), None, 0
        while running:
            # Ctrl-C may land anywhere in this loop: every part of it is covered, so the
            # questions in flight always get to finish and store their rows.
            try:
                kind, value = results.get(timeout=0.25)
                if kind in ("exit", "fatal"):
                    running -= 1
                    fatal = fatal or value
                elif kind == "stopped":
                    bar.clear()
                    self.note(f"stopping: {report.llm_lost} questions in a row lost to the "
                              f"LLM ({report.llm_lost_error}); the questions in flight finish")
                else:
                    report.asked += 1
                    final_metrics.append(value.metrics)
                    bar.update(1)
                    _postfix(bar, final_metrics)
            except queue.Empty:
                continue
            except KeyboardInterrupt:
                interrupts += 1
                feed.stop.set()
                report.interrupted = True
                if interrupts > 1:
                    break
                in_flight = sum(t.is_alive() for t in workers)
                bar.clear()
                self.note(f"interrupted: finishing the {in_flight} question(s) in flight "
                          "(Ctrl-C again to stop at once)")
        return fatal

    def _close(self, report: RunReport, fatal: BaseException | None) -> RunReport:
        """The run's status and summary once its workers are done."""
        stored = self.previous()
        report.done = len({q.id for q in self.questions} & set(stored))
        if fatal is not None:
            set_status(self.store, self.run.eval_id, "failed")
            if isinstance(fatal, AfrError):
                raise fatal
            raise AfrError(f"the evaluation stopped: {type(fatal).__name__}: {fatal}")
        finished = report.done >= len(self.questions) and not report.interrupted
        if report.interrupted and report.done >= len(self.questions) \
                and not report.stopped_for_llm:
            finished = True  # the last questions finished while stopping
            report.interrupted = False
        status = "finished" if finished else "interrupted"
        set_status(self.store, self.run.eval_id, status)
        self.run.status = status
        store_summary(self.store, self.run.eval_id)
        if self.store.standby_fallbacks:
            self.note(f"the read replica went away during the run: {self.store.standby_fallbacks}"
                      " read(s) it failed ran again on the primary, which took every read "
                      "after them")
        return report

    def _count_llm_loss(self, report: RunReport, outcome: Outcome) -> bool:
        """Count a question lost to the LLM (a question that failed for another reason
        neither counts nor breaks the streak); True when the run should stop."""
        if outcome.llm_failure in LOST_TO_LLM:
            report.llm_lost += 1
            report.llm_lost_error = outcome.llm_error
            if report.llm_lost_kind is None or LOST_TO_LLM.index(outcome.llm_failure) < \
                    LOST_TO_LLM.index(report.llm_lost_kind):
                report.llm_lost_kind = outcome.llm_failure
        elif outcome.status != "failed":
            report.llm_lost, report.llm_lost_kind, report.llm_lost_error = 0, None, None
        return 0 < self.max_llm_failures <= report.llm_lost

    def _one(self, position: int, q: Question) -> Outcome:
        """Ask one question, derive its variants, store its rows. Failures of the question
        itself are recorded; a failing store write is raised (the run cannot go on)."""
        started = time.perf_counter()
        answered = self._ask(q)
        per_variant = {name: question_metrics(answered.lists.get(name, []),
                                              list(q.answer_ids), self.candidate_gold)
                       for name in self.names}
        self._write(position, q, answered, per_variant, time.perf_counter() - started)
        r = answered.result
        return Outcome(q.id, answered.status, per_variant[FINAL], answered.error,
                       r.llm_failure if r is not None else None,
                       r.llm_error if r is not None else None)

    def _ask(self, q: Question) -> _Answered:
        """The question asked (as replayed when the run replays a column), every variant's
        list of ext ids, and its timings; a failure of the question is recorded in it."""
        cypher = target_type = None
        if self.settings.replay:
            cypher = q.extras.get(self.settings.replay) or ""
            target_type = q.extras.get("target_type") or None
        try:
            asked = time.perf_counter()
            result = self.pipeline.ask(q.query, eval_id=self.run.eval_id, question_id=q.id,
                                       cypher=cypher, target_type=target_type)
            # the run's own method, timed like the other methods of --methods
            timings = {**result.timings,
                       f"method={result.method}": time.perf_counter() - asked}
            ids, others = self.maker.lists(q.query, result, AskedAs(
                cypher, target_type, self.run.eval_id, q.id))
        except Exception as exc:  # noqa: BLE001 - recorded per question; the run goes on
            error = str(exc) if isinstance(exc, AfrError) else f"{type(exc).__name__}: {exc}"
            return _Answered(None, error=error)
        error = "; ".join(f.note for f in result.fallbacks) if result.fallbacks else None
        return _Answered(result, self._ext_ids(ids), {**timings, **others}, result.status,
                         error)

    def _write(self, position: int, q: Question, answered: _Answered,
               per_variant: dict[str, dict[str, float]], seconds: float) -> None:
        """The question's rows (eval_results, eval_variants) in one transaction."""
        r = answered.result
        params = {
            "eval_id": self.run.eval_id, "question_id": q.id,
            "run_id": r.run_id if r is not None and r.logged else None,
            "ranked": json.dumps(answered.lists.get(FINAL, [])),
            "gold": json.dumps(list(q.answer_ids)), "metrics": json.dumps(per_variant[FINAL]),
            "error": answered.error, "position": position, "query": q.query,
            "status": answered.status, "seconds": round(seconds, 6),
            "timings": json.dumps(answered.timings),
            "llm_prompts": r.llm_calls if r is not None else 0,
            "llm_new_calls": r.llm_new_calls if r is not None else 0,
            "llm_tokens": r.llm_tokens_all if r is not None else 0,
            "outcome": r.outcome if r is not None else "failed",
            "steps": json.dumps(question_steps(r, q.extras.get("target_type") or None,
                                               self.store.skb_schema())
                                if r is not None else None),
        }

        def write() -> None:  # deletes first: safe to repeat after a lost connection
            self.store.run("eval/delete_question.sql",
                           {"eval_id": self.run.eval_id, "question_id": q.id})
            self.store.run("eval/insert_result.sql", params)
            self.store.run("eval/insert_variants.sql", {
                "eval_id": self.run.eval_id, "question_id": q.id,
                "variants": list(self.names),
                "ranked": [json.dumps(answered.lists.get(n, [])) for n in self.names],
                "metrics": [json.dumps(per_variant[n]) for n in self.names],
            })

        self.store.run_in_transaction(write)

    def _ext_ids(self, lists: dict[str, list[int]]) -> dict[str, list[str]]:
        ids = sorted({n for ranked in lists.values() for n in ranked})
        ext = {i: str(d.ext_id) for i, d in self.store.node_details(ids).items()}
        return {name: [ext[n] for n in ranked if n in ext] for name, ranked in lists.items()}


@dataclass
class _Answered:
    """One question as asked: its result (None: it failed), each variant's list of ext
    ids, its timings, status and error."""

    result: AskResult | None
    lists: dict[str, list[str]] = field(default_factory=dict)
    timings: dict[str, float] = field(default_factory=dict)
    status: str = "failed"
    error: str | None = None


class _Feed:
    """The questions left to ask, handed to the workers one at a time until ``stop``."""

    def __init__(self, todo: list[tuple[int, Question]]) -> None:
        self._items = iter(todo)
        self.lock = threading.Lock()
        self.stop = threading.Event()

    def next(self) -> tuple[int, Question] | None:
        with self.lock:
            if self.stop.is_set():
                return None
            return next(self._items, None)


def question_steps(result: AskResult, gold_type: str | None = None,
                   schema: SkbSchema | None = None) -> dict[str, Any]:
    """What the steps of one question did, as ``eval_results.steps`` keeps it: how steps
    1–2 were written, whether step 8 reranked (and its replies, and how many of them could
    not be used), and the fallbacks (step, kind); the tokens
    sent and received, the step-8 prompts that did not fit the context (the paper's Table
    7); the answer type step 1 predicted and the Cypher's RETURN names, beside the question
    set's (Tables 12, 14, 15); the query graph's triplets and constants (Table 19's
    "processed")."""
    af = result.af
    steps: dict[str, Any] = {
        "formalized": af.formalized.by if af is not None else None,
        "reranked": result.reranked,
        "rerank_replies": result.rerank_replies,
        "rerank_unusable": result.rerank_unusable,
        "fallbacks": [{"step": f.step, "kind": f.kind} for f in result.fallbacks],
        "tokens": {"input": result.llm_input_tokens, "output": result.llm_output_tokens},
        "overflows": list(result.rerank_overflows),
    }
    if af is not None:
        resolved = af.grounded.resolved
        steps["types"] = {"gold": gold_type, "step1": af.formalized.target_type,
                          "step2": cypher_target_type(af.cypher, schema)}
        steps["graph"] = {"triplets": len(resolved.triplets),
                          "constants": sum(s.is_constant
                                           for s in resolved.symbols.values())}
    return steps


def cypher_target_type(cypher: str, schema: SkbSchema | None) -> str | None:
    """The node type the Cypher's RETURN variable is labelled with, as written (None: no
    label, or, given the ``schema``, none of its types): the target type "parsed from the
    Cypher query" (the paper's step-2 columns)."""
    graph = parse_cypher(cypher or "")
    symbol = graph.symbols.get(graph.target or "")
    if symbol is None or not symbol.label:
        return None
    return schema.node_type(symbol.label) if schema is not None else symbol.label


def _progress_bar(total: int, initial: int, enabled: bool):
    from tqdm import tqdm

    return tqdm(total=total, initial=initial, desc="eval", unit="q", disable=not enabled,
                file=sys.stderr, dynamic_ncols=True, leave=False)


def _postfix(bar: Any, rows: list[dict[str, float]]) -> None:
    if rows and not bar.disable:
        n = len(rows)
        bar.set_postfix_str(f"hit@1 {100 * sum(r['hit@1'] for r in rows) / n:.1f}% "
                            f"hit@20 {100 * sum(r['hit@20'] for r in rows) / n:.1f}%",
                            refresh=False)

