"""What an eval run says: summary (metrics per variant, latency per step, LLM cost),
exports, and the comparison of two runs. Everything is read back from the store, so a
run can be summarised while it is going, after an interruption, or years later."""

from __future__ import annotations

import json
import statistics
from typing import Any

from afr.errors import AfrError
from afr.evaluate.eval_runs import EvalRun, find_eval_run, load_results, load_variants
from afr.evaluate.metrics import METRICS, mean_metrics
from afr.evaluate.paper_stats import (
    grounding_stats,
    overflow_counts,
    target_type_accuracy,
    token_split,
)
from afr.evaluate.variants import FINAL, VARIANTS, variant_names
from afr.llm.fallback import UNUSABLE
from afr.methods.af.repair import OUTCOMES
from afr.settings import differences
from afr.store.base import Store

STEP_ORDER = ("1_target_type", "1-2_llm_failed", "2_cypher", "3_parse", "3_repair", "4_symbols",
              "5_grounding", "6_vss_grounded", "7_vss_topup", "8_rerank", "8_llm_failed")
_ZERO = {m: 0.0 for m in METRICS}


def _stored(run: EvalRun, path: str) -> Any:
    """One setting of the run's stored tree (None where it stored none)."""
    value: Any = run.settings.ask
    for part in path.split("."):
        value = value.get(part) if isinstance(value, dict) else None
    return value


def reranker_of(run: EvalRun) -> str:
    """The reranker the run was set up with; ``none`` without an LLM."""
    return "none" if _stored(run, "llm.offline") else str(_stored(run, "rerank.method")
                                                          or "none")


def mode_label(run: EvalRun, steps: dict[str, Any] | None = None) -> str:
    """How the run was set up, and, given ``steps`` (``llm_steps``), where the LLM failed
    to do its part: the label never claims a step that did not run."""
    method = _stored(run, "ask.method") or "af"
    llm = not _stored(run, "llm.offline")
    model = _stored(run, "llm.model")
    rerank = reranker_of(run)
    if method not in ("af", "af+sage"):  # no Cypher: the AF labels do not apply
        label = f"method {method}"
        if method == "kar":
            label += " (LLM query expansion)" if llm else " (offline: graph expansion)"
        return label + (f", {rerank} rerank by {model}" if llm and rerank != "none" else "")
    steps = steps or {}
    if run.settings.replay:
        label = f"replay of column {run.settings.replay!r}"
        label += f", {rerank} rerank by {model}" if llm and rerank != "none" else ", no LLM"
    elif not llm:
        return "offline (entity linking + schema paths, no reranking)"
    else:
        label = f"llm ({model}, " + ("no rerank)" if rerank == "none" else f"{rerank} rerank)")
    failed = []
    by_step = steps.get("degraded_steps") or {}
    if steps.get("formalized_offline"):
        failed.append(f"steps 1–2 offline on {steps['formalized_offline']} of "
                      f"{steps['answered']} questions" + _kinds(by_step.get("steps 1–2")))
    if rerank != "none" and steps.get("reranked", 0) < steps.get("rerankable", 0):
        failed.append(f"reranked {steps['reranked']} of {steps['rerankable']}"
                      + _kinds(by_step.get("step 8")))
    return label + (f" — the LLM failed: {', '.join(failed)}" if failed else "")


def _kinds(kinds: dict[str, int] | None) -> str:
    """`` (unusable replies 4)``: why a step fell back, per kind of failure."""
    if not kinds:
        return ""
    return " (" + ", ".join(f"{'unusable replies' if k == UNUSABLE else k} {n}"
                            for k, n in kinds.items()) + ")"


def llm_steps(run: EvalRun, results: list[dict[str, Any]]) -> dict[str, Any]:
    """What the LLM did, read from each question's ``steps`` (``afr.evaluate.runner.
    question_steps``): steps 1–2 that fell back to the offline formalizer, the questions
    step 8 reranked, its replies and those it could not use, and the questions each step
    degraded, per kind of failure."""
    answered = [r for r in results if r["status"] != "failed"]
    rerankable = [r for r in answered if r["ranked"]]
    replayed = bool(run.settings.replay)
    steps = {id(r): r.get("steps") or legacy_steps(r.get("timings")) for r in answered}
    reranking = reranker_of(run) != "none"
    return {
        "answered": len(answered),
        "formalized_offline": 0 if replayed else sum(
            any(f["step"] == "steps 1–2" for f in steps[id(r)]["fallbacks"])
            for r in answered),
        "rerankable": len(rerankable),
        "reranked": 0 if not reranking else sum(
            bool(steps[id(r)]["reranked"]) for r in rerankable),
        "rerank_replies": sum(steps[id(r)].get("rerank_replies") or 0 for r in rerankable),
        "rerank_unusable": sum(steps[id(r)].get("rerank_unusable") or 0 for r in rerankable),
        "degraded_steps": degraded_steps([steps[id(r)] for r in answered]),
    }


def degraded_steps(steps: list[dict[str, Any]]) -> dict[str, dict[str, int]]:
    """Questions per LLM step that fell back, and per kind of failure (``afr.llm.
    fallback.KINDS``): {"step 8": {"unusable": 4}}, in the order the steps run."""
    out: dict[str, dict[str, int]] = {}
    for per in steps:
        for f in per["fallbacks"]:
            kinds = out.setdefault(f["step"], {})
            kinds[f["kind"]] = kinds.get(f["kind"], 0) + 1
    return out


def legacy_steps(timings: dict[str, float] | None) -> dict[str, Any]:
    """``steps`` of a question stored before schema 10 recorded them: the afr of then
    named a failed step by its timing (``1-2_llm_failed``) and timed ``8_rerank`` only
    when the LLM reranked."""
    timings = timings or {}
    return {"formalized": None, "reranked": "8_rerank" in timings,
            "fallbacks": [{"step": "steps 1–2", "kind": "error"}]
            if "1-2_llm_failed" in timings else []}


def _stats(values: list[float]) -> dict[str, float]:
    return {"median": statistics.median(values), "mean": statistics.fmean(values),
            "max": max(values)}


def summarize(store: Store, run: EvalRun) -> dict[str, Any]:
    results = load_results(store, run.eval_id)
    variants = load_variants(store, run.eval_id)
    names = variant_names(run.settings.sweeps)
    names += sorted({v for per in variants.values() for v in per} - set(names))
    metrics = {
        name: mean_metrics([(variants.get(r["question_id"], {}).get(name) or
                             {"metrics": _ZERO})["metrics"] for r in results])
        for name in names
    }
    answered = [r for r in results if r["status"] != "failed"]
    did = llm_steps(run, results)
    steps: dict[str, list[float]] = {}
    for r in answered:
        for step, seconds in (r["timings"] or {}).items():
            steps.setdefault(step, []).append(float(seconds))
    order = [s for s in STEP_ORDER if s in steps] + sorted(set(steps) - set(STEP_ORDER))
    latency = {s: _stats(steps[s]) for s in order}
    if answered:
        latency["question"] = _stats([float(r["seconds"] or 0) for r in answered])
    n = len(results)
    llm = {
        "prompts_per_question": sum(r["llm_prompts"] or 0 for r in results) / n if n else 0.0,
        "tokens_per_question": sum(r["llm_tokens"] or 0 for r in results) / n if n else 0.0,
        "prompts": sum(r["llm_prompts"] or 0 for r in results),
        "new_calls": sum(r["llm_new_calls"] or 0 for r in results),
        "tokens": sum(r["llm_tokens"] or 0 for r in results),
        **token_split(results),
        "overflows": overflow_counts(results),
    }
    return {
        "eval_id": run.eval_id, "name": run.name, "source": run.settings.source,
        "split": run.settings.split, "status": run.status, "mode": mode_label(run, did),
        "reranker": reranker_of(run), "reranked": did["reranked"],
        "rerankable": did["rerankable"], "rerank_replies": did["rerank_replies"],
        "rerank_unusable": did["rerank_unusable"], "degraded_steps": did["degraded_steps"],
        "replay": run.settings.replay, "questions": run.total or n, "done": n,
        "failed": sum(r["status"] == "failed" for r in results),
        "degraded": sum(r["status"] == "degraded" for r in results),
        "metrics": metrics, "latency": latency, "llm": llm,
        "outcomes": outcome_counts(results),
        "preset": _stored(run, "ask.preset"),
        "target_types": target_type_accuracy(results),
        "grounding": grounding_stats(results, variants),
    }


def outcome_counts(results: list[dict[str, Any]]) -> dict[str, int]:
    """Questions per run outcome (valid, fixed, repaired, unanswerable, failed); runs
    stored before outcomes existed count as "unknown"."""
    counts = {o: 0 for o in OUTCOMES}
    for r in results:
        key = r.get("outcome") or ("failed" if r["status"] == "failed" else "unknown")
        counts[key] = counts.get(key, 0) + 1
    return counts


def store_summary(store: Store, eval_id: str) -> dict[str, Any]:
    run = find_eval_run(store, eval_id)
    summary = summarize(store, run)
    with store.transaction():
        store.run("eval/set_metrics.sql", {"eval_id": eval_id,
                                           "metrics": json.dumps(summary, default=str)})
    return summary


# -- export ------------------------------------------------------------------------------

EXPORT_COLUMNS = ("question_id", "query", "gold", "ranked", *METRICS, "status", "error",
                  "run_id", "seconds", "llm_prompts", "llm_tokens")


def export_rows(store: Store, run: EvalRun, *, with_variants: bool = False
                ) -> list[dict[str, Any]]:
    variants = load_variants(store, run.eval_id) if with_variants else {}
    out = []
    for r in load_results(store, run.eval_id):
        item: dict[str, Any] = {
            "question_id": r["question_id"], "query": r["query"], "gold": r["gold"],
            "ranked": r["ranked"], **{m: (r["metrics"] or _ZERO).get(m, 0.0) for m in METRICS},
            "status": r["status"], "error": r["error"], "run_id": r["run_id"],
            "seconds": r["seconds"], "llm_prompts": r["llm_prompts"],
            "llm_tokens": r["llm_tokens"],
        }
        if with_variants:
            item["variants"] = variants.get(r["question_id"], {})
        out.append(item)
    return out


# -- compare -----------------------------------------------------------------------------

def compare(store: Store, a: EvalRun, b: EvalRun, *, a_variant: str | None = None,
            b_variant: str | None = None) -> dict[str, Any]:
    """Two runs, or two lists of runs (``*_variant``: a variant name such as
    ``method=kar`` or ``bm25``; None: the final list), question by question."""
    sa, sb = summarize(store, a), summarize(store, b)
    common_variants = [v for v in sa["metrics"] if v in sb["metrics"]]
    ra = question_rows(store, a, a_variant, sa)
    rb = question_rows(store, b, b_variant, sb)
    shared = [q for q in ra if q in rb]
    per_metric: dict[str, dict[str, Any]] = {}
    for metric in ("hit@1", "mrr"):
        wins, losses = [], []
        for q in shared:
            va = (ra[q]["metrics"] or _ZERO).get(metric, 0.0)
            vb = (rb[q]["metrics"] or _ZERO).get(metric, 0.0)
            if vb > va:
                wins.append(q)
            elif vb < va:
                losses.append(q)
        per_metric[metric] = {"b_better": wins, "a_better": losses,
                              "ties": len(shared) - len(wins) - len(losses)}
    return {"a": sa, "b": sb, "a_variant": a_variant or FINAL, "b_variant": b_variant or FINAL,
            "settings_differ": [{"setting": p, "a": va, "b": vb} for p, va, vb in
                                differences(a.settings.ask, b.settings.ask)],
            "variants": common_variants, "shared_questions": len(shared),
            "only_a": len(ra) - len(shared), "only_b": len(rb) - len(shared),
            "per_question": per_metric,
            "queries": {q: ra[q]["query"] for q in shared}}


def question_rows(store: Store, run: EvalRun, variant: str | None,
                   summary: dict[str, Any]) -> dict[str, dict[str, Any]]:
    """Per question: query and metrics of the run's final list, or of one variant."""
    rows = {r["question_id"]: r for r in load_results(store, run.eval_id)}
    if variant is None or variant == FINAL:
        return rows
    if variant not in summary["metrics"]:
        known = ", ".join(summary["metrics"])
        raise AfrError(f"run {run.name or run.eval_id} has no list {variant!r} "
                       f"(it has: {known})")
    variants = load_variants(store, run.eval_id)
    return {q: {**r, "metrics": (variants.get(q, {}).get(variant) or {}).get("metrics")}
            for q, r in rows.items()}


__all__ = ["FINAL", "VARIANTS", "compare", "export_rows", "question_rows", "store_summary",
           "summarize"]
