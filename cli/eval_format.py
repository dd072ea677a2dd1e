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
        + f" · {summary['status']} · {summary['mode']}"
        + (f" · preset {summary['preset']}" if summary.get("preset") else ""),
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
    lines += _paper_lines(summary)
    llm = summary["llm"]
    lines.append("")
    split = (f" ({llm['input_per_question']:.0f} sent, {llm['output_per_question']:.0f} "
             "received)") if "input_per_question" in llm else ""
    lines.append(f"LLM: {llm['prompts_per_question']:.1f} prompts and "
                 f"{llm['tokens_per_question']:.0f} tokens per question{split}; "
                 f"{llm['new_calls']} calls sent in this store, "
                 f"{llm['prompts'] - llm['new_calls']} answered from the cache")
    overflows = llm.get("overflows")
    if overflows is not None and summary.get("reranker", "none") != "none":
        lines.append(f"step 8 context overflows: {overflows['full']} questions with full "
                     f"descriptions (a), {overflows['related']} with the query's relations "
                     "only (b)")
    return "\n".join(lines)


def _kind(kind: str) -> str:
    return "unusable replies" if kind == "unusable" else kind


def _num(value: float | None) -> str:
    return "-" if value is None else f"{value:.1f}"


def _paper_lines(summary: dict[str, Any]) -> list[str]:
    """The paper's per-step measures (Tables 12/14/15 and 19), where the run has them."""
    lines: list[str] = []
    types = summary.get("target_types")
    if types:
        lines += ["", format_table(
            ["target type (%)", "invalid", "wrong"],
            [[f"step {n} ({what})", _num(types[f"step{n}"]["invalid"]),
              _num(types[f"step{n}"]["wrong"])]
             for n, what in ((1, "predicted"), (2, "the Cypher's RETURN"))])]
        if summary.get("replay"):
            lines.append("(a replay takes step 1's type from the question set)")
    grounding = summary.get("grounding")
    if grounding:
        lines += ["", format_table(
            ["steps 1-5 processed", "precision", "specificity", "steps 1-6 >0 retrievals",
             "hit@20", "recall@20"],
            [[_num(grounding["processed"]), _num(grounding["precision"]),
              _num(grounding["specificity"]), _num(grounding["retrieved"]),
              _num(grounding["hit@20"]), _num(grounding["recall@20"])]]),
            "(the paper's Table 19: percent; precision and the 1-6 metrics over the "
            "questions with a grounded answer)"]
    return lines


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
