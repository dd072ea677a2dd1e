"""`afr eval plot` in a terminal: the plots of ``afr.evaluate.plots`` drawn with Unicode
block characters, no dependency. hit@k bars are exact to an eighth of a character; win/loss
bars (A better: ░ to the left, B better: █ to the right) to a whole one."""

from __future__ import annotations

import math
import statistics
from collections.abc import Sequence

from afr.evaluate.plots import KS, HitCurves, Latency, WinLoss

WIDTH = 40  # characters of a full bar
_EIGHTHS = " ▏▎▍▌▋▊▉"
_LEVELS = " ▁▂▃▄▅▆▇█"
MOST_QUESTIONS = 30  # win/loss lines shown (the largest differences)


def bar(fraction: float, width: int = WIDTH) -> str:
    """A bar ``fraction`` (0–1) of ``width`` characters long."""
    eighths = round(max(0.0, min(1.0, fraction)) * width * 8)
    full, rest = divmod(eighths, 8)
    return ("█" * full + (_EIGHTHS[rest] if rest else "")).ljust(width)


def hits_text(plot: HitCurves, width: int = 10) -> str:
    """One line per list: a bar and a percentage for each k."""
    pad = max((len(name) for name, _ in plot.curves), default=0)
    head = "  ".join(f"@{k}".ljust(width + 6) for k in KS)
    lines = [f"{plot.title} (percent)", f"{' ' * pad}  {head}".rstrip()]
    for name, values in plot.curves:
        cells = "  ".join(f"{bar(v, width)} {100 * v:5.1f}" for v in values)
        lines.append(f"{name.ljust(pad)}  {cells}".rstrip())
    return "\n".join(lines)


def win_loss_text(plot: WinLoss) -> str:
    half = WIDTH // 2
    lines = [f"{plot.metric} of B ({plot.b}) minus A ({plot.a}), per question: B better on "
             f"{plot.b_better}, A better on {plot.a_better}, tied on {plot.ties}"]
    changed = [(q, d) for q, d in plot.deltas if d]
    shown = sorted(changed, key=lambda item: -abs(item[1]))[:MOST_QUESTIONS]
    shown.sort(key=lambda item: (-item[1], item[0]))
    top = max((abs(d) for _, d in shown), default=1.0) or 1.0
    pad = max((len(q) for q, _ in shown), default=0)
    for q, d in shown:
        size = max(1, round(abs(d) / top * half))  # whole characters: bars grow both ways
        left = ("░" * size if d < 0 else "").rjust(half)
        right = "█" * size if d > 0 else ""
        lines.append(f"  {q.ljust(pad)} {d:+.3f} {left}│{right}")
    if len(changed) > len(shown):
        lines.append(f"  … {len(changed) - len(shown)} more questions differ (smaller "
                     "differences)")
    return "\n".join(lines)


def latency_text(plot: Latency, bins: int = 16) -> str:
    every = [s for _, values in plot.steps for s in values if s > 0]
    if not every:
        return f"{plot.title}: no timings"
    low, high = math.log10(min(every)), math.log10(max(every))
    span = (high - low) or 1.0
    pad = max(len(step) for step, _ in plot.steps)
    lines = [f"{plot.title}: median, 90th percentile, max, and how many questions took how "
             f"long ({_secs(min(every))} … {_secs(max(every))}, log scale)"]
    for step, values in plot.steps:
        counts = [0] * bins
        for s in values:
            at = 0 if s <= 0 else int((math.log10(s) - low) / span * (bins - 1) + 0.5)
            counts[min(bins - 1, max(0, at))] += 1
        most = max(counts) or 1
        shape = "".join(_LEVELS[math.ceil(c / most * 8)] if c else " " for c in counts)
        lines.append(f"{step.ljust(pad)}  {_secs(statistics.median(values)):>9} "
                     f"{_secs(_p90(values)):>9} {_secs(max(values)):>9}  │{shape}│")
    return "\n".join(lines)


def _p90(values: Sequence[float]) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, math.ceil(0.9 * len(ordered)) - 1)]


def _secs(value: float) -> str:
    return f"{value * 1000:.1f} ms" if value < 1 else f"{value:.2f} s"


def draw_text(plots: Sequence[HitCurves | WinLoss | Latency]) -> str:
    """Every plot, one after the other, for a terminal."""
    drawn = []
    for plot in plots:
        if isinstance(plot, HitCurves):
            drawn.append(hits_text(plot))
        elif isinstance(plot, WinLoss):
            drawn.append(win_loss_text(plot))
        else:
            drawn.append(latency_text(plot))
    return "\n\n".join(drawn)
