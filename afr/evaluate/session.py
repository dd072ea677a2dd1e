"""One `afr eval run`, start to end: new or resumed run, its settings resolved and stored,
the questions asked (``Evaluator``), the summary read back.

``run_eval`` is the one call behind the command; the CLI only parses its options and
prints what comes back.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from afr.errors import AfrError
from afr.evaluate.eval_runs import (
    EvalRun,
    EvalSettings,
    find_eval_run,
    mark_stale_runs,
    new_eval_run,
    source_path,
    store_eval_run,
)
from afr.evaluate.questions import Question
from afr.evaluate.report import summarize
from afr.evaluate.runner import MAX_LLM_FAILURES, Evaluator, RunReport
from afr.evaluate.variants import merge_sweeps, parse_methods, parse_sweeps
from afr.pipeline.ask import Pipeline
from afr.pipeline.cost import (
    Calls,
    describe_calls,
    describe_tokens,
    llm_calls,
    rerank_calls,
    rerank_tokens,
    total_calls,
)
from afr.settings import Settings, to_dict, with_stored, with_values
from afr.store.base import Store

Note = Callable[[str], None]
# Called once the run is ready and before the first question: (run, questions, resumed).
Started = Callable[[EvalRun, int, bool], None]

# Above this many questions, a DuckDB store answers the searches from in-memory matrices
# (loaded once, a few seconds at PRIME's size); PostgreSQL has its HNSW index.
MEMORY_VECTORS_FROM = 20


@dataclass
class EvalSession:
    """What one `afr eval run` did."""

    run: EvalRun
    report: RunReport
    summary: dict[str, Any]
    questions: int
    resumed: bool

    @property
    def interrupted(self) -> bool:
        return self.report.interrupted


def run_eval(store: Store, source: str | None = None, *, resume: str | None = None,
             settings: Settings | None = None, name: str | None = None,
             split: str | None = None, limit: int | None = None, sample: int | None = None,
             seed: int = 0, replay: str | None = None, sweeps: Sequence[str] = (),
             methods: str | None = None, concurrency: int | None = None,
             progress: bool = False, max_llm_failures: int = MAX_LLM_FAILURES,
             note: Note | None = None, started: Started | None = None) -> EvalSession:
    """Ask every question of ``source`` (or carry on with the run ``resume`` names, with
    its stored settings) and score the answers.

    ``settings``: the resolved settings (``afr.settings.resolve_settings``) a new run asks
    with; they are stored with the run, and a resume asks with the stored ones (only what
    a run never stores, such as the API key, comes from ``settings``). ``methods``: other
    methods side by side, comma-separated (``--methods``: ``--sweep method=…``).
    ``concurrency`` None keeps a resumed run's value (1 for a new run). After
    ``max_llm_failures`` questions in a row lost to the LLM (unreachable, timed out,
    refusing access) the run stops, interrupted (0: never stop).

    Everything a new run needs is checked before it is stored (the question file, --replay's
    column, the gold ids, the sweeps): a start that fails leaves no run behind."""
    note = note or (lambda message: None)
    store.require_initialised()
    mark_stale_runs(store)
    if resume:
        if source:
            raise AfrError("give either SOURCE or --resume EVAL_ID, not both")
        run = find_eval_run(store, resume)
        eval_settings, pipeline = run.settings, _resumed_pipeline(store, run, settings)
        if concurrency is not None:
            eval_settings.concurrency = concurrency
    else:
        eval_settings, pipeline = _new_run(store, source, settings, note, split=split,
                                           limit=limit, sample=sample, seed=seed,
                                           replay=replay, sweeps=sweeps, methods=methods,
                                           concurrency=concurrency)
    questions = eval_settings.questions()
    if not questions:
        raise AfrError(f"{eval_settings.source}: no questions to evaluate")
    if not resume:
        run = new_eval_run(eval_settings, name=name, total=len(questions))
    evaluator = Evaluator(store, pipeline, run, questions, note=note,
                          max_llm_failures=max_llm_failures)
    if pipeline.offline and not eval_settings.replay:
        why = pipeline.settings.llm.incomplete or "no LLM configured"
        note(f"offline mode ({why}): entity linking + schema paths, no reranking")
    if not pipeline.offline:
        note(cost_note(pipeline, eval_settings, evaluator.left()))
        tokens = tokens_note(pipeline, eval_settings, questions, evaluator.left())
        if tokens:
            note(tokens)
    if len(questions) > MEMORY_VECTORS_FROM:
        _search_from_memory(store, pipeline)
    if not resume:
        store_eval_run(store, run)
    if started is not None:
        started(run, len(questions), bool(resume))
    report = evaluator.execute(progress=progress)
    return EvalSession(run, report, summarize(store, run), len(questions), bool(resume))


def _search_from_memory(store: Store, pipeline: Pipeline) -> None:
    """Many questions: vector searches from in-memory matrices, BM25 from the mapped
    postings (an index built before afr wrote postings files gets one here)."""
    from afr.lexical import map_postings
    from afr.vectors.memory import use_memory_vectors

    use_memory_vectors(store, pipeline.settings.vectors.memory_mb)
    map_postings(store)


def _resumed_pipeline(store: Store, run: EvalRun, settings: Settings | None) -> Pipeline:
    """The pipeline of a resumed run: its stored settings, with what a run never stores
    (the API key) from ``settings``."""
    return Pipeline(store, with_stored(settings or Settings(), run.settings.ask))


def _new_run(store: Store, source: str | None, settings: Settings | None, note: Note, *,
             split: str | None, limit: int | None, sample: int | None, seed: int,
             replay: str | None, sweeps: Sequence[str], methods: str | None,
             concurrency: int | None) -> tuple[EvalSettings, Pipeline]:
    """The settings of a new run (checked, not stored yet) and its pipeline."""
    if not source:
        raise AfrError("missing SOURCE (a question file or folder, or 'demo'); "
                       "or --resume EVAL_ID")
    path = source_path(source)
    parsed = parse_sweeps(tuple(sweeps))
    if methods:
        parsed = merge_sweeps(parsed, "method", parse_methods(methods))
    eval_settings = EvalSettings(
        source=str(path.resolve()) if path.exists() else source, split=split, limit=limit,
        sample=sample, seed=seed, replay=replay, sweeps=parsed, concurrency=concurrency or 1)
    mismatch = skb_mismatch(store, path)
    if mismatch:
        note(mismatch)
    pipeline = Pipeline(store, settings or Settings())
    # stored as the run asks: offline or not, as this pipeline decided
    eval_settings.ask = to_dict(with_values(pipeline.settings,
                                            {"llm.offline": pipeline.offline}))
    return eval_settings, pipeline


def cost_note(pipeline: Pipeline, eval_settings: EvalSettings, questions: int) -> str:
    """The LLM calls a run will make, per question and for the ``questions`` it asks:
    the method's steps, and the other rerankers and methods its sweeps add."""
    settings, given = pipeline.settings, bool(eval_settings.replay)
    types = len(pipeline.session.schema.candidate_types)
    parts = list(llm_calls(settings, candidate_types=types, given_cypher=given))
    for reranker in eval_settings.sweeps.get("reranker", []):
        low, high = rerank_calls(reranker, settings.ask.k)
        if reranker != settings.rerank.method and high:
            parts.append(Calls(f"--sweep reranker={reranker}", low, high))
    for method in eval_settings.sweeps.get("method", []):
        other = total_calls(llm_calls(settings, candidate_types=types, given_cypher=given,
                                      method=method))
        if method != settings.ask.method and other.high:
            parts.append(Calls(f"--methods {method}", other.low, other.high))
    most = total_calls(parts).high * questions
    return (f"LLM calls per question: {describe_calls(parts)}; {questions} questions to "
            f"ask: up to {most:,} calls (retries not counted; calls in the cache are free)")


def tokens_note(pipeline: Pipeline, eval_settings: EvalSettings,
                questions: Sequence[Question], left: int) -> str | None:
    """Step 8's expected prompt tokens per question and for the ``left`` questions to ask
    (None: nothing is reranked): the run's reranker, and the lists its sweeps add."""
    settings, store = pipeline.settings, pipeline.store
    chars = round(sum(len(q.query) for q in questions) / len(questions)) if questions else 0
    main = rerank_tokens(store, settings, question_chars=chars)
    others = [m for m in eval_settings.sweeps.get("method", []) if m != settings.ask.method]
    most = main.high * (1 + len(others))
    for reranker in eval_settings.sweeps.get("reranker", []):
        if reranker != settings.rerank.method:
            most += rerank_tokens(store, settings, question_chars=chars,
                                  reranker=reranker).high
    if not most:
        return None
    return describe_tokens(main, left, most) if main.high else (
        f"rerank prompts per question: up to about {most:,} tokens (the sweeps' rerankers; "
        f"tokens estimated as characters / 4) — up to about {most * left:,} for {left:,} "
        "questions")


def skb_mismatch(store: Store, path: Path) -> str | None:
    """A note when the question source's skb.json names another SKB than the store's."""
    skb_json = (path if path.is_dir() else path.parent) / "skb.json"
    if not skb_json.is_file():
        return None
    try:
        name = json.loads(skb_json.read_text(encoding="utf-8")).get("name")
    except (OSError, ValueError, AttributeError):
        return None
    loaded = store.skb_name()
    if name and loaded and name != loaded:
        return f"the questions belong to SKB {name!r} but the store holds {loaded!r}"
    return None
