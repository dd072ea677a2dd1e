"""`afr eval` summaries and comparisons as text tables."""

from __future__ import annotations

from typing import Any

from afr.evaluate import FINAL, METRICS

from .output import format_table


def _pct(value: float) -> str:
    return f"{100 * value:.1f}"


def _secs(value: float) -> str:
    return f"{value * 1000:.1f} ms" if value < 1 else f"{value:.2f} s"


def format_summary(summary: dict[str, Any]) -> str:
    lines = [
        f"eval {summary['eval_id']}" + (f" ({summary['name']})" if summary["name"] else "")
        + f" · {summary['status']} · {summary['mode']}",
        f"questions: {summary['done']} of {summary['questions']} done · "
        f"{summary['failed']} failed · {summary['degraded']} degraded (LLM failures) · "
        f"source {summary['source']}" + (f" split {summary['split']}" if summary["split"]
                                         else ""),
    ]
    by_step = summary.get("degraded_steps") or {}
    if by_step:
        lines.append("degraded by step: " + " · ".join(
            f"{step} on {sum(kinds.values())} ("
            + ", ".join(f"{_kind(k)} {n}" for k, n in kinds.items()) + ")"
            for step, kinds in by_step.items()))
    lines.append("")
    labels = {"1+7": "1+7   vector search only", "1-5": "1-5   grounded, by level",
              "1-6": "1-6   graph strand", "1-7": "1-7   + VSS top-up",
              "1-8": "1-8   final (reranked)"}
    labels["1-8"] = "1-8   final " + _rerank_note(summary)
    outcomes = summary.get("outcomes") or {}
    if any(outcomes.values()):
        lines.append("outcomes: " + " · ".join(f"{n} {name}" for name, n in outcomes.items()
                                               if n or name != "unknown"))
        lines.append("")
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


def _kind(kind: str) -> str:
    return "unusable replies" if kind == "unusable" else kind


def _rerank_note(summary: dict[str, Any]) -> str:
    """What step 8 did to the final lists: only claim a rerank that happened (a reply
    named a candidate: the LLM changed or confirmed the order)."""
    if summary.get("reranker", "none") == "none":
        return "(no reranking)"
    reranked, rerankable = summary.get("reranked"), summary.get("rerankable")
    if reranked is None or reranked >= rerankable:  # (summaries stored before these counts)
        return "(reranked)"
    failed = (summary.get("degraded_steps") or {}).get("step 8") or {}
    unusable, replies = summary.get("rerank_unusable") or 0, summary.get("rerank_replies") or 0
    if reranked == 0:
        if unusable and set(failed) == {"unusable"}:
            return f"(not reranked: {unusable} of {replies} replies unusable)"
        return "(not reranked: the LLM failed)"
    return f"(reranked {reranked} of {rerankable}" + (
        f"; {unusable} of {replies} replies unusable)" if unusable else ")")


def format_compare(data: dict[str, Any], *, examples: int = 5) -> str:
    a, b = data["a"], data["b"]

    def head(label: str, run: dict[str, Any], variant: str) -> str:
        return (f"{label}: {run['eval_id']}" + (f" ({run['name']})" if run["name"] else "")
                + (f", list {variant}" if variant != FINAL else "")
                + f" · {run['mode']} · {run['done']} questions")

    lines = [head("A", a, data["a_variant"]), head("B", b, data["b_variant"]), ""]
    if data["settings_differ"]:
        lines.append(format_table(["setting", "A", "B"], [
            [d["setting"], _setting(d["a"]), _setting(d["b"])]
            for d in data["settings_differ"]]))
    else:
        lines.append("settings: the same")
    lines.append("")
    rows = []
    for v in data["variants"]:
        for m in METRICS:
            va, vb = a["metrics"][v][m], b["metrics"][v][m]
            rows.append([v, m, _pct(va), _pct(vb), f"{100 * (vb - va):+.1f}"])
    lines.append(format_table(["variant", "metric", "A", "B", "B−A"], rows))
    oa, ob = a.get("outcomes") or {}, b.get("outcomes") or {}
    if any(oa.values()) or any(ob.values()):
        names = [o for o in {**oa, **ob} if oa.get(o) or ob.get(o) or o != "unknown"]
        lines.append("")
        lines.append(format_table(["outcome", "A", "B", "B−A"], [
            [o, oa.get(o, 0), ob.get(o, 0), f"{ob.get(o, 0) - oa.get(o, 0):+d}"]
            for o in names]))
    lines.append("")
    lists = "" if data["a_variant"] == data["b_variant"] == FINAL \
        else f", {data['a_variant']} vs {data['b_variant']}"
    lines.append(f"per question ({data['shared_questions']} in both runs{lists}"
                 + (f"; {data['only_a']} only in A" if data["only_a"] else "")
                 + (f"; {data['only_b']} only in B" if data["only_b"] else "") + "):")
    for metric, d in data["per_question"].items():
        lines.append(f"  {metric}: B better on {len(d['b_better'])}, A better on "
                     f"{len(d['a_better'])}, tied on {d['ties']}")
        for label, ids in (("B better", d["b_better"]), ("A better", d["a_better"])):
            for q in ids[:examples]:
                lines.append(f"    {label}: [{q}] {' '.join(data['queries'][q].split())[:90]}")
    return "\n".join(lines)


def _setting(value: Any) -> str:
    """A stored setting for a table: None (unset or not stored) shown as such."""
    if value is None:
        return "(none)"
    return f"{value:g}" if isinstance(value, float) else str(value)
