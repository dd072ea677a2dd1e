"""The paper's per-step measures that are not ranked-list metrics, read back from an eval
run's rows (``eval_results.steps``, ``eval_variants``):

- target-type accuracy (Tables 12, 14, 15): per step, the share of questions whose
  predicted type is not a type of the SKB ("invalid") and whose valid type differs from
  the question set's ``target_type`` ("wrong") — step 1 as predicted, step 2 as the
  Cypher's RETURN variable is labelled;
- the grounding's per-step numbers (Table 19): "processed" — questions whose query
  graph has a triplet and a constant, so that steps 4–5 run; over those, the average
  precision (gold answers among the grounded ones, questions with ≥ 1 grounded answer)
  and specificity as the paper defines it (gold answers grounded among all gold
  answers); "> 0 retrievals", the processed questions with at least one grounded answer;
  and hit@20 / recall@20 of the step-6 list ("1-6") over those;
- the LLM's tokens sent and received, and step 8's context overflows (Table 7): incident
  (a), a prompt with full descriptions did not fit; (b), one with the relations to the
  query's names only did not fit either.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any


def _pct(part: int | float, whole: int) -> float | None:
    return 100.0 * part / whole if whole else None


def target_type_accuracy(results: Sequence[Mapping[str, Any]]) -> dict[str, Any] | None:
    """Per step (``step1``, ``step2``): invalid and wrong predictions in percent of the
    questions whose set names a target type; None when none does."""
    typed = [(r.get("steps") or {}).get("types") or {} for r in results]
    typed = [t for t in typed if t.get("gold")]
    if not typed:
        return None
    out: dict[str, Any] = {"questions": len(typed)}
    for step in ("step1", "step2"):
        invalid = sum(1 for t in typed if not t.get(step))
        wrong = sum(1 for t in typed if t.get(step) and t[step] != t["gold"])
        out[step] = {"invalid": _pct(invalid, len(typed)), "wrong": _pct(wrong, len(typed))}
    return out


def grounding_stats(results: Sequence[Mapping[str, Any]],
                    variants: Mapping[str, Mapping[str, Mapping[str, Any]]]
                    ) -> dict[str, Any] | None:
    """Table 19's columns for steps 1–5 and 1–6 (percent); None for a run with no query
    graphs (another method, or stored before afr recorded them)."""
    graphs = [(r, (r.get("steps") or {}).get("graph")) for r in results]
    graphs = [(r, g) for r, g in graphs if g is not None]
    if not graphs:
        return None
    processed = [r for r, g in graphs if g["triplets"] and g["constants"]]
    precision: list[float] = []
    specificity: list[float] = []
    retrieved: list[Mapping[str, Any]] = []
    for r in processed:
        grounded = set((variants.get(r["question_id"], {}).get("1-5") or {}).get("ranked")
                       or [])
        gold = set(r["gold"] or [])
        hits = len(grounded & gold)
        specificity.append(hits / len(gold) if gold else 0.0)
        if grounded:
            precision.append(hits / len(grounded))
            retrieved.append(r)
    step6 = [(variants.get(r["question_id"], {}).get("1-6") or {}).get("metrics") or {}
             for r in retrieved]
    return {
        "questions": len(graphs),
        "processed": _pct(len(processed), len(graphs)),
        "precision": _pct(sum(precision), len(precision)),
        "specificity": _pct(sum(specificity), len(specificity)),
        "retrieved": _pct(len(retrieved), len(processed)),
        "hit@20": _pct(sum(m.get("hit@20", 0.0) for m in step6), len(step6)),
        "recall@20": _pct(sum(m.get("recall@20", 0.0) for m in step6), len(step6)),
    }


def token_split(results: Sequence[Mapping[str, Any]]) -> dict[str, float]:
    """Average tokens sent and received per question (cached replies included: the
    method's cost, as ``llm_tokens``)."""
    tokens = [(r.get("steps") or {}).get("tokens") or {} for r in results]
    n = len(results)
    return {"input_per_question": sum(t.get("input", 0) for t in tokens) / n if n else 0.0,
            "output_per_question": sum(t.get("output", 0) for t in tokens) / n if n else 0.0}


def overflow_counts(results: Sequence[Mapping[str, Any]]) -> dict[str, int]:
    """Questions whose step 8 hit the context limit: with full descriptions (a), and with
    the query's relations only (b)."""
    seen = [set((r.get("steps") or {}).get("overflows") or ()) for r in results]
    return {"full": sum("full" in s for s in seen), "related": sum("related" in s for s in seen)}
