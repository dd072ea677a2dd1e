"""What `afr eval plot` draws, read from the store: hit@k curves per list, the per-question
wins and losses of one list against another, and the step-latency distribution.

The data are plain frozen values; ``afr.evaluate.plot_text`` draws them as text for a
terminal (no dependency), ``afr.evaluate.plot_files`` as SVG, PNG or PDF (matplotlib, the
``plot`` extra).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from afr.errors import AfrError
from afr.evaluate.eval_runs import EvalRun, load_results
from afr.evaluate.report import STEP_ORDER, question_rows, summarize
from afr.evaluate.variants import FINAL
from afr.store.base import Store

KS = (1, 5, 10, 20)
KINDS = ("hits", "winloss", "latency")
Ref = tuple[EvalRun, str | None]  # a run, and one of its lists (None: the final list)


@dataclass(frozen=True)
class HitCurves:
    """hit@k for k in ``KS``, one curve (fractions) per list."""

    title: str
    curves: tuple[tuple[str, tuple[float, ...]], ...]


@dataclass(frozen=True)
class WinLoss:
    """One metric of list B minus list A, per question both have: sorted, best for B
    first."""

    a: str
    b: str
    metric: str
    deltas: tuple[tuple[str, float], ...]

    @property
    def b_better(self) -> int:
        return sum(d > 0 for _, d in self.deltas)

    @property
    def a_better(self) -> int:
        return sum(d < 0 for _, d in self.deltas)

    @property
    def ties(self) -> int:
        return sum(d == 0 for _, d in self.deltas)


@dataclass(frozen=True)
class Latency:
    """Seconds per question of each step (the answered questions' timings)."""

    title: str
    steps: tuple[tuple[str, tuple[float, ...]], ...]


def label(ref: Ref) -> str:
    run, variant = ref
    name = run.name or run.eval_id
    return name if variant in (None, FINAL) else f"{name}@{variant}"


def hit_curves(store: Store, refs: list[Ref]) -> HitCurves:
    """One run without a list named: each of its lists (variants, methods, sweeps);
    several: one curve per run (its final list, or the list named)."""
    if len(refs) == 1 and refs[0][1] is None:
        run = refs[0][0]
        metrics = summarize(store, run)["metrics"]
        return HitCurves(f"hit@k of the lists of eval {label(refs[0])}", tuple(
            (name, _hits(m)) for name, m in metrics.items()))
    curves = []
    for run, variant in refs:
        metrics = summarize(store, run)["metrics"]
        name = variant or FINAL
        if name not in metrics:
            raise AfrError(f"run {run.name or run.eval_id} has no list {name!r} (it has: "
                           f"{', '.join(metrics)})")
        curves.append((label((run, variant)), _hits(metrics[name])))
    return HitCurves("hit@k", tuple(curves))


def _hits(metrics: dict[str, float]) -> tuple[float, ...]:
    return tuple(float(metrics.get(f"hit@{k}", 0.0)) for k in KS)


def win_loss(store: Store, a: Ref, b: Ref, *, metric: str = "mrr") -> WinLoss:
    """Per question both lists answered: ``metric`` of B minus that of A."""
    rows_a = question_rows(store, a[0], a[1], summarize(store, a[0]))
    rows_b = question_rows(store, b[0], b[1], summarize(store, b[0]))
    deltas = [(q, _metric(rows_b[q], metric) - _metric(rows_a[q], metric))
              for q in rows_a if q in rows_b]
    deltas.sort(key=lambda item: (-item[1], item[0]))
    return WinLoss(label(a), label(b), metric, tuple(deltas))


def _metric(row: dict[str, Any], metric: str) -> float:
    return float((row.get("metrics") or {}).get(metric, 0.0))


def latency(store: Store, runs: list[EvalRun]) -> Latency:
    """Each step's seconds per answered question; the steps of several runs are told
    apart by the run's name."""
    steps: dict[str, list[float]] = {}
    for run in runs:
        suffix = f" ({run.name or run.eval_id})" if len(runs) > 1 else ""
        for row in load_results(store, run.eval_id):
            if row["status"] == "failed":
                continue
            for step, seconds in (row["timings"] or {}).items():
                steps.setdefault(step + suffix, []).append(float(seconds))
    order = sorted(steps, key=lambda s: (_step_rank(s), s))
    return Latency("step latency per question", tuple((s, tuple(steps[s])) for s in order))


def _step_rank(step: str) -> int:
    base = step.split(" (", 1)[0]
    return STEP_ORDER.index(base) if base in STEP_ORDER else len(STEP_ORDER)


def plot_data(store: Store, refs: list[Ref], kinds: tuple[str, ...], *,
              metric: str = "mrr") -> list[HitCurves | WinLoss | Latency]:
    """The plots ``kinds`` of the runs or lists ``refs``, in the order of ``KINDS``; a
    win/loss plot needs two of them."""
    out: list[HitCurves | WinLoss | Latency] = []
    if "hits" in kinds:
        out.append(hit_curves(store, refs))
    if "winloss" in kinds:
        if len(refs) != 2:
            raise AfrError(f"a win/loss plot compares two runs or lists (A B), not "
                           f"{len(refs)}")
        out.append(win_loss(store, refs[0], refs[1], metric=metric))
    if "latency" in kinds:
        runs = {run.eval_id: run for run, _ in refs}  # each run once
        out.append(latency(store, list(runs.values())))
    return out
