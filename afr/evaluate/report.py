"""What an eval run says: summary (metrics per variant, latency per step, LLM cost),
exports, and the comparison of two runs. Everything is read back from the store, so a
run can be summarised while it is going, after an interruption, or years later."""

from __future__ import annotations

import json
import statistics
from typing import Any

from afr.evaluate.metrics import METRICS, mean_metrics
from afr.evaluate.runner import EvalRun, _json, find_run
from afr.evaluate.variants import FINAL, VARIANTS, variant_names
from afr.store.base import Store

STEP_ORDER = ("1_target_type", "2_cypher", "3_parse", "4_symbols", "5_grounding",
              "6_vss_grounded", "7_vss_topup", "8_rerank")
_ZERO = {m: 0.0 for m in METRICS}


def load_results(store: Store, eval_id: str) -> list[dict[str, Any]]:
    cols = ("question_id", "position", "query", "run_id", "ranked", "gold", "metrics", "error",
            "status", "seconds", "timings", "llm_prompts", "llm_new_calls", "llm_tokens")
    out = []
    for row in store.run("eval/results.sql", {"eval_id": eval_id}):
        item = dict(zip(cols, row, strict=True))
        for key in ("ranked", "gold", "metrics", "timings"):
            item[key] = _json(item[key])
        item["question_id"] = str(item["question_id"])
        out.append(item)
    return out


def load_variants(store: Store, eval_id: str) -> dict[str, dict[str, dict[str, Any]]]:
    """question id → variant → {"ranked": [...], "metrics": {...}}."""
    out: dict[str, dict[str, dict[str, Any]]] = {}
    for qid, variant, ranked, metrics in store.run("eval/variants.sql", {"eval_id": eval_id}):
        out.setdefault(str(qid), {})[variant] = {"ranked": _json(ranked),
                                                 "metrics": _json(metrics)}
    return out


def mode_label(run: EvalRun) -> str:
    ask = run.settings.ask
    llm = not ask.get("offline")
    model = (ask.get("llm") or {}).get("model")
    if run.settings.replay:
        label = f"replay of column {run.settings.replay!r}"
        rerank = ask.get("reranker", "none")
        return label + (f", {rerank} rerank by {model}" if llm and rerank != "none"
                        else ", no LLM")
    if not llm:
        return "offline (entity linking + schema paths, no reranking)"
    return f"llm ({model}, {ask.get('reranker')} rerank)"


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
    }
    return {
        "eval_id": run.eval_id, "name": run.name, "source": run.settings.source,
        "split": run.settings.split, "status": run.status, "mode": mode_label(run),
        "replay": run.settings.replay, "questions": run.total or n, "done": n,
        "failed": sum(r["status"] == "failed" for r in results),
        "degraded": sum(r["status"] == "degraded" for r in results),
        "metrics": metrics, "latency": latency, "llm": llm,
    }


def store_summary(store: Store, eval_id: str) -> dict[str, Any]:
    run = find_run(store, eval_id)
    summary = summarize(store, run)
    with store.transaction():
        store.run("eval/set_metrics.sql", {"eval_id": eval_id,
                                           "metrics": json.dumps(summary, default=str)})
    return summary


def _pct(value: float) -> str:
    return f"{100 * value:.1f}"


def _secs(value: float) -> str:
    return f"{value * 1000:.1f} ms" if value < 1 else f"{value:.2f} s"


def format_summary(summary: dict[str, Any]) -> str:
    from afr.cli.output import format_table

    lines = [
        f"eval {summary['eval_id']}" + (f" ({summary['name']})" if summary["name"] else "")
        + f" · {summary['status']} · {summary['mode']}",
        f"questions: {summary['done']} of {summary['questions']} done · "
        f"{summary['failed']} failed · {summary['degraded']} degraded (LLM failures) · "
        f"source {summary['source']}" + (f" split {summary['split']}" if summary["split"]
                                         else ""),
        "",
    ]
    labels = {"1+7": "1+7   vector search only", "1-5": "1-5   grounded, by level",
              "1-6": "1-6   graph strand", "1-7": "1-7   + VSS top-up",
              "1-8": "1-8   final (reranked)"}
    if "offline" in summary["mode"] or "no LLM" in summary["mode"]:
        labels["1-8"] = "1-8   final (no reranking)"
    rows = [[labels.get(name, name)] + [_pct(m[k]) for k in METRICS]
            for name, m in summary["metrics"].items()]
    lines.append(format_table(["variant", "hit@1", "hit@5", "hit@10", "hit@20", "recall@20",
                               "MRR"], rows))
    lines.append("(percent, averaged over the questions done; failed questions count as 0)")
    if summary["latency"]:
        lines.append("")
        rows = [[step, _secs(s["median"]), _secs(s["mean"]), _secs(s["max"])]
                for step, s in summary["latency"].items()]
        lines.append(format_table(["step latency", "median", "mean", "max"], rows))
    llm = summary["llm"]
    lines.append("")
    lines.append(f"LLM: {llm['prompts_per_question']:.1f} prompts and "
                 f"{llm['tokens_per_question']:.0f} tokens per question; "
                 f"{llm['new_calls']} calls sent in this store, "
                 f"{llm['prompts'] - llm['new_calls']} answered from the cache")
    return "\n".join(lines)


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

def compare(store: Store, a: EvalRun, b: EvalRun) -> dict[str, Any]:
    sa, sb = summarize(store, a), summarize(store, b)
    common_variants = [v for v in sa["metrics"] if v in sb["metrics"]]
    ra = {r["question_id"]: r for r in load_results(store, a.eval_id)}
    rb = {r["question_id"]: r for r in load_results(store, b.eval_id)}
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
    return {"a": sa, "b": sb, "variants": common_variants, "shared_questions": len(shared),
            "only_a": len(ra) - len(shared), "only_b": len(rb) - len(shared),
            "per_question": per_metric,
            "queries": {q: ra[q]["query"] for q in shared}}


def format_compare(data: dict[str, Any], *, examples: int = 5) -> str:
    from afr.cli.output import format_table

    a, b = data["a"], data["b"]
    lines = [f"A: {a['eval_id']}" + (f" ({a['name']})" if a["name"] else "") + f" · {a['mode']}"
             f" · {a['done']} questions",
             f"B: {b['eval_id']}" + (f" ({b['name']})" if b["name"] else "") + f" · {b['mode']}"
             f" · {b['done']} questions", ""]
    rows = []
    for v in data["variants"]:
        for m in METRICS:
            va, vb = a["metrics"][v][m], b["metrics"][v][m]
            rows.append([v, m, _pct(va), _pct(vb), f"{100 * (vb - va):+.1f}"])
    lines.append(format_table(["variant", "metric", "A", "B", "B−A"], rows))
    lines.append("")
    lines.append(f"per question ({data['shared_questions']} in both runs"
                 + (f"; {data['only_a']} only in A" if data["only_a"] else "")
                 + (f"; {data['only_b']} only in B" if data["only_b"] else "") + "):")
    for metric, d in data["per_question"].items():
        lines.append(f"  {metric}: B better on {len(d['b_better'])}, A better on "
                     f"{len(d['a_better'])}, tied on {d['ties']}")
        for label, ids in (("B better", d["b_better"]), ("A better", d["a_better"])):
            for q in ids[:examples]:
                lines.append(f"    {label}: [{q}] {' '.join(data['queries'][q].split())[:90]}")
    return "\n".join(lines)


__all__ = ["FINAL", "VARIANTS", "compare", "export_rows", "format_compare", "format_summary",
           "load_results", "load_variants", "store_summary", "summarize"]
