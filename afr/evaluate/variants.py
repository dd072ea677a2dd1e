"""Ablation variants and parameter sweeps, derived from one ask of a question.

The paper's Table 5 compares pipelines that stop after different steps. All of them are
prefixes of the full run, so one ask yields every variant's ranked list without new LLM
calls:

- ``1+7``: plain vector search over the target type (steps 1 and 7 only);
- ``1-5``: the grounded answers, in the order of the level at which they appeared, then id;
- ``1-6``: the graph strand: grounded answers by level, then similarity to the question;
- ``1-7``: graph strand topped up with vector search, before reranking;
- ``1-8``: the final, reranked list;
- ``vss``, ``bm25``, ``hybrid``: the plain methods over the same target type (``--method``),
  side by side with the question's own method;
- ``af:paper``, ``af:hybrid``: steps 1–7 with the paper's and with the hybrid ranking, from
  the same grounding (AF asks only).

Sweeps vary one knob: ``alpha`` recombines the stored strands (no retrieval re-run),
``l_max`` re-grounds the question's Cypher from the first pass (no LLM), ``reranker``
reranks the steps 1–7 list with another method (new rerank calls land in the cache),
``method`` asks the question again with another method (``kar``, ``sage``, …: methods side
by side over the same questions, each logged as its own run of the eval, its time in the
question's timings as ``method=<name>``).
"""

from __future__ import annotations

import time
from dataclasses import dataclass

from afr.errors import AfrError
from afr.lexical import has_lexical_index
from afr.methods.af.ranking import RANKING_STEPS, recombine
from afr.pipeline.ask import Pipeline
from afr.pipeline.finish import rerank_list
from afr.pipeline.result import AskResult
from afr.retrieval.lists import PLAIN, answer_types, plain_list
from afr.settings import METHODS, RERANKERS, with_values
from afr.vectors.search import query_vector

VARIANTS = ("1+7", "1-5", "1-6", "1-7", "1-8")
METHOD_VARIANTS = ("vss", "bm25", "hybrid", "af:paper", "af:hybrid")
FINAL = "1-8"
SWEEP_KNOBS = ("alpha", "l_max", "reranker", "method")


def parse_sweeps(specs: list[str] | tuple[str, ...]) -> dict[str, list]:
    """``["alpha=0.5,1", "l_max=10,30"]`` → ``{"alpha": [0.5, 1.0], "l_max": [10, 30]}``."""
    out: dict[str, list] = {}
    for spec in specs:
        knob, sep, values = spec.partition("=")
        knob = knob.strip().replace("-", "_")
        if not sep or knob not in SWEEP_KNOBS:
            raise AfrError(f"bad --sweep {spec!r}: use alpha=…, l_max=…, reranker=… or "
                           "method=… with comma-separated values")
        items = [v.strip() for v in values.split(",") if v.strip()]
        if not items:
            raise AfrError(f"--sweep {knob}: no values given")
        parsed: list = []
        for item in items:
            try:
                if knob == "alpha":
                    value: float | int | str = float(item)
                    if not 0 <= value <= 1:
                        raise ValueError
                elif knob == "l_max":
                    value = int(item)
                    if value < 1:
                        raise ValueError
                else:
                    if item not in (RERANKERS if knob == "reranker" else METHODS):
                        raise ValueError
                    value = item
            except ValueError:
                allowed = {"alpha": "a number in [0, 1]", "l_max": "a positive integer",
                           "reranker": " / ".join(RERANKERS),
                           "method": " / ".join(METHODS)}[knob]
                raise AfrError(f"--sweep {knob}: {item!r} is not {allowed}") from None
            if value not in parsed:
                parsed.append(value)
        out.setdefault(knob, [])
        out[knob] += [v for v in parsed if v not in out[knob]]
    return out


def parse_methods(text: str) -> list[str]:
    """``--methods M1,M2``: the methods to run side by side (``--sweep method=M1,M2``),
    an unknown one named as the option that gave it."""
    items = [m.strip() for m in text.split(",") if m.strip()]
    if not items:
        raise AfrError("--methods: no methods given (e.g. --methods vss,bm25)")
    unknown = [m for m in items if m not in METHODS]
    if unknown:
        raise AfrError(f"--methods: {unknown[0]!r} is not a method; use "
                       f"{' / '.join(METHODS)}")
    return list(dict.fromkeys(items))


def merge_sweeps(sweeps: dict[str, list], knob: str, values: list) -> dict[str, list]:
    """``sweeps`` with ``values`` added to ``knob``'s (each value once)."""
    merged = list(sweeps.get(knob, []))
    merged += [v for v in values if v not in merged]
    return {**sweeps, knob: merged}


def variant_names(sweeps: dict[str, list]) -> list[str]:
    names = list(VARIANTS) + list(METHOD_VARIANTS)
    for knob in SWEEP_KNOBS:
        names += [f"{knob}={_fmt(v)}" for v in sweeps.get(knob, [])]
    return names


def _fmt(value: object) -> str:
    return f"{value:g}" if isinstance(value, float) else str(value)


@dataclass(frozen=True)
class AskedAs:
    """How the main ask of a question was made (the other methods ask the same way)."""

    cypher: str | None = None  # replayed Cypher
    target_type: str | None = None
    eval_id: str | None = None
    question_id: str | None = None


class VariantMaker:
    """Turns an AskResult into the ranked node-id list of every variant and sweep value."""

    def __init__(self, pipeline: Pipeline, sweeps: dict[str, list]) -> None:
        self.pipeline = pipeline
        self.sweeps = sweeps
        settings = pipeline.settings
        if "reranker" in sweeps and pipeline.offline and any(
                m != "none" for m in sweeps["reranker"]):
            raise AfrError("--sweep reranker needs an LLM (set AFR_LLM_BASE_URL / "
                           "AFR_LLM_MODEL or pass --llm-url/--llm-model)")
        session = pipeline.session
        # One pipeline per l_max value, sharing store and embedder: it re-grounds the
        # first pass's Cypher with no LLM and no reranking, and logs nothing.
        self.l_max_pipelines = {
            v: Pipeline(pipeline.store, with_values(settings, {
                "af.l_max": v, "rerank.method": "none", "ask.log": False,
                "llm.offline": True}), embedder=session.embedder)
            for v in sweeps.get("l_max", [])
        }
        # One pipeline per other method, sharing store, embedder and LLM; each logs its
        # own run of the eval, so its candidates can be inspected like the main method's.
        self.method_pipelines = {
            m: Pipeline(pipeline.store, with_values(settings, {"ask.method": m}),
                        embedder=session.embedder, llm=session.llm)
            for m in sweeps.get("method", [])
        }

    def lists(self, question: str, result: AskResult, asked: AskedAs | None = None
              ) -> tuple[dict[str, list[int]], dict[str, float]]:
        """Every variant's ranked node ids, and the seconds the other methods took (by
        ``method=NAME``)."""
        k = self.pipeline.settings.ask.k
        strands = result.strands
        grounded = result.af.grounded_answers if result.af else []
        out: dict[str, list[int]] = {
            "1+7": [n for n, _ in strands.vss[:k]],
            "1-5": [n for n, _ in sorted(grounded, key=lambda a: (a[1], a[0]))],
            "1-6": self._graph_list(result),
            "1-7": [c.node_id for c in strands.final],
            "1-8": [a.node_id for a in result.answers],
        }
        out.update(self._methods(question, result))
        for alpha in self.sweeps.get("alpha", []):
            out[f"alpha={_fmt(alpha)}"] = self._recombine(question, result, alpha)
        for l_max, pipe in self.l_max_pipelines.items():
            again = pipe.ask(question, cypher=result.cypher or "",
                             target_type=result.target_type)
            out[f"l_max={l_max}"] = [a.node_id for a in again.answers]
        for method in self.sweeps.get("reranker", []):
            out[f"reranker={method}"] = self._rerank(question, result, method)
        timings: dict[str, float] = {}
        for method, pipe in self.method_pipelines.items():
            out[f"method={method}"] = self._other_method(pipe, question, result, method,
                                                         asked or AskedAs(), timings)
        return out, timings

    def _graph_list(self, result: AskResult) -> list[int]:
        """"1-6": every grounded answer in step 6's order (AF asks only)."""
        af = result.af
        if af is None:
            return []
        ranking = RANKING_STEPS[af.ranking]
        return [c.node_id for c in ranking.graph_list(self.pipeline.store, af.rank_input,
                                                      result.strands)]

    def _other_method(self, pipe: Pipeline, question: str, result: AskResult,
                      method: str, asked: AskedAs, timings: dict[str, float]) -> list[int]:
        """The question asked again with another method, as the main ask was (the same
        replayed Cypher and target type, the same eval); its time goes into ``timings``."""
        if method == self.pipeline.settings.ask.method:
            return [a.node_id for a in result.answers]
        started = time.perf_counter()
        again = pipe.ask(question, cypher=asked.cypher, target_type=asked.target_type,
                         eval_id=asked.eval_id, question_id=asked.question_id)
        timings[f"method={method}"] = time.perf_counter() - started
        return [a.node_id for a in again.answers]

    def _methods(self, question: str, result: AskResult) -> dict[str, list[int]]:
        """The plain methods and both rankings of the AF strands, for the same question."""
        pipe = self.pipeline
        settings, store = pipe.settings, pipe.store
        types = answer_types(result.target_type, pipe.session.schema)
        qvec = query_vector(store, pipe.session.embedder, question)
        out = {}
        for method in PLAIN:
            if method != "vss" and not has_lexical_index(store):
                out[method] = []
                continue
            out[method] = [c.node_id for c in plain_list(
                store, qvec, question, types, settings.ask.k, method, settings.ranking,
                settings.bm25)]
        af = result.af
        if af is None:
            out["af:paper"] = out["af:hybrid"] = []
            return out
        # The ask ran one of the two rankings already: its steps 1–7 list is that variant
        # (af+sage: its list is expanded, so both are ranked again from the grounding).
        asked = [c.node_id for c in result.strands.final] \
            if settings.ask.method == "af" else None
        for name, ranking in RANKING_STEPS.items():
            out[f"af:{name}"] = asked if asked is not None and af.ranking == name else [
                c.node_id for c in ranking.rank(store, af.rank_input, explain=False).final]
        return out

    def _recombine(self, question: str, result: AskResult, alpha: float) -> list[int]:
        pipe = self.pipeline
        qvec = result.af.rank_input.qvec if result.af else \
            query_vector(pipe.store, pipe.session.embedder, question)
        types = answer_types(result.target_type, pipe.session.schema)
        return [c.node_id for c in recombine(pipe.store, result.strands, qvec, types,
                                             pipe.settings.ask.k, alpha,
                                             result.af.rank_input if result.af else None)]

    def _rerank(self, question: str, result: AskResult, method: str) -> list[int]:
        before = [c.node_id for c in result.strands.final]
        session = self.pipeline.session
        if method == "none" or session.llm is None:
            return before
        if method == self.pipeline.settings.rerank.method and result.answers:
            return [a.node_id for a in result.answers]
        reranked = rerank_list(session.llm, session, question, result.strands.final,
                               method=method, keep_names=result.retrieved.keep_names,
                               focus=result.retrieved.focus)
        positions = reranked.positions
        if not positions:
            return before
        return sorted(before, key=lambda n: positions.get(n, len(before) + 1))
