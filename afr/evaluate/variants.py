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
from dataclasses import dataclass, replace

from afr.errors import AfrError
from afr.lexical import has_lexical_index
from afr.pipeline.ask import Pipeline
from afr.pipeline.config import METHODS, RERANKERS
from afr.pipeline.fusion import FusionWeights
from afr.pipeline.hybrid_ranking import (
    answer_types,
    baseline,
    hybrid_strands,
    paper_strands,
    target_text_conditions,
)
from afr.pipeline.ranking import combine, vss_strand
from afr.pipeline.result import AskResult
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
        cfg = pipeline.config
        if "reranker" in sweeps and pipeline.llm is None and any(
                m != "none" for m in sweeps["reranker"]):
            raise AfrError("--sweep reranker needs an LLM (set AFR_LLM_BASE_URL / "
                           "AFR_LLM_MODEL or pass --llm-url/--llm-model)")
        # One pipeline per l_max value, sharing store and embedder: it re-grounds the
        # first pass's Cypher with no LLM and no reranking, and logs nothing.
        self.l_max_pipelines = {
            v: Pipeline(pipeline.store, replace(cfg, l_max=v, reranker="none", log=False,
                                                 offline=True),
                         embedder=pipeline.embedder)
            for v in sweeps.get("l_max", [])
        }
        # One pipeline per other method, sharing store, embedder and LLM; each logs its
        # own run of the eval, so its candidates can be inspected like the main method's.
        self.method_pipelines = {
            m: Pipeline(pipeline.store, replace(cfg, method=m), embedder=pipeline.embedder,
                        llm=pipeline.llm, full_graph_strand=pipeline.full_graph_strand)
            for m in sweeps.get("method", [])
        }

    def lists(self, question: str, result: AskResult, asked: AskedAs | None = None
              ) -> dict[str, list[int]]:
        k = self.pipeline.config.k
        grounded = result.grounding.answers if result.grounding else []
        out: dict[str, list[int]] = {
            "1+7": [n for n, _ in result.vss_ranked[:k]],
            "1-5": [n for n, _ in sorted(grounded, key=lambda a: (a[1], a[0]))],
            "1-6": [c.node_id for c in result.graph_ranked],
            "1-7": [c.node_id for c in result.pre_rerank],
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
        for method, pipe in self.method_pipelines.items():
            out[f"method={method}"] = self._other_method(pipe, question, result, method,
                                                         asked or AskedAs())
        return out

    def _other_method(self, pipe: Pipeline, question: str, result: AskResult,
                      method: str, asked: AskedAs) -> list[int]:
        """The question asked again with another method, as the main ask was (the same
        replayed Cypher and target type, the same eval); its time goes into the timings."""
        if method == self.pipeline.config.method:
            return [a.node_id for a in result.answers]
        started = time.perf_counter()
        again = pipe.ask(question, cypher=asked.cypher, target_type=asked.target_type,
                         eval_id=asked.eval_id, question_id=asked.question_id)
        result.timings[f"method={method}"] = time.perf_counter() - started
        return [a.node_id for a in again.answers]

    def _methods(self, question: str, result: AskResult) -> dict[str, list[int]]:
        """The plain methods and both rankings of the AF strands, for the same question."""
        pipe = self.pipeline
        cfg, store = pipe.config, pipe.store
        k = cfg.k
        types = answer_types(result, pipe.schema)
        qvec = query_vector(store, pipe.embedder, question)
        weights = FusionWeights.from_settings()
        out = {}
        for method in ("vss", "bm25", "hybrid"):
            if method != "vss" and not has_lexical_index(store):
                out[method] = []
                continue
            out[method] = [c.node_id for c in baseline(store, qvec, question, types, k, method,
                                                       weights)]
        if cfg.method not in ("af", "af+sage"):
            out["af:paper"] = out["af:hybrid"] = []
            return out
        # The ask ran one of the two rankings already: its steps 1–7 list is that variant
        # (af+sage: its list is expanded, so both are made again from the grounding).
        asked = [c.node_id for c in result.pre_rerank] if cfg.method == "af" else None
        grounded = result.grounding.answers if result.grounding else []
        out["af:paper"] = asked if asked is not None and cfg.ranking == "paper" else [
            c.node_id for c in paper_strands(store, qvec, grounded, types, k,
                                             cfg.graph_quota).final]
        out["af:hybrid"] = asked if asked is not None and cfg.ranking == "hybrid" else [
            c.node_id for c in hybrid_strands(store, qvec, question, grounded, types, k,
                                              weights=weights,
                                              confidence=result.link_confidence,
                                              text=target_text_conditions(result),
                                              keep_graph=cfg.graph_quota).final]
        return out

    def _recombine(self, question: str, result: AskResult, alpha: float) -> list[int]:
        k = self.pipeline.config.k
        quota = round(alpha * k)
        graph = [replace(c) for c in result.graph_ranked[:quota]]  # combine marks them
        vss = result.vss_ranked
        if len(vss) < k + len(graph):
            # the first pass fetched only as much plain search as its own alpha needed
            types = answer_types(result, self.pipeline.schema)
            qvec = query_vector(self.pipeline.store, self.pipeline.embedder, question)
            vss = vss_strand(self.pipeline.store, qvec, types, k + len(graph))
        return [c.node_id for c in combine(graph, vss, k)]

    def _rerank(self, question: str, result: AskResult, method: str) -> list[int]:
        before = [c.node_id for c in result.pre_rerank]
        if method == "none" or self.pipeline.llm is None:
            return before
        if method == self.pipeline.config.reranker and result.answers:
            return [a.node_id for a in result.answers]
        scratch = replace(result, warnings=[])
        positions = self.pipeline._rerank(question, [replace(c) for c in result.pre_rerank],
                                          scratch, method=method)
        if not positions:
            return before
        return sorted(before, key=lambda n: positions.get(n, len(before) + 1))
