"""`afr eval plot -o FILE`: the plots of ``afr.evaluate.plots`` as one SVG, PNG or PDF
figure, one panel per plot, drawn by matplotlib (the optional extra ``plot``).

Only matplotlib's object API is used (no pyplot, no GUI backend): the figure is drawn in
memory and written where asked, through a scratch file beside it renamed at the end, so a
failure leaves no half-written file.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path

from afr.errors import AfrError
from afr.evaluate.plots import KS, HitCurves, Latency, WinLoss
from afr.resources import install_command

FORMATS = ("svg", "png", "pdf")


def file_format(path: str | Path) -> str:
    """The format a file name asks for; an AfrError for one afr does not write."""
    suffix = Path(path).suffix.lower().lstrip(".")
    if suffix not in FORMATS:
        raise AfrError(f"{path}: a plot is written as .svg, .png or .pdf")
    return suffix


def have_matplotlib() -> bool:
    try:
        import matplotlib  # noqa: F401
    except ImportError:
        return False
    return True


def write_plots(plots: Sequence[HitCurves | WinLoss | Latency], path: str | Path) -> Path:
    """Draw ``plots`` into ``path`` (its suffix picks the format); the path written."""
    fmt = file_format(path)
    if not have_matplotlib():
        raise AfrError(f"writing {path} needs matplotlib: {install_command('plot')}")
    from matplotlib.figure import Figure

    fig = Figure(figsize=(8, 4 * len(plots)), layout="constrained")
    axes = fig.subplots(len(plots), 1, squeeze=False)[:, 0]
    for ax, plot in zip(axes, plots, strict=True):
        if isinstance(plot, HitCurves):
            _hits(ax, plot)
        elif isinstance(plot, WinLoss):
            _win_loss(ax, plot)
        else:
            _latency(ax, plot)
    target = Path(path)
    scratch = target.with_name(f".{target.name}.{os.getpid()}.part")
    try:
        fig.savefig(scratch, format=fmt, metadata=_no_dates(fmt))
        os.replace(scratch, target)
    except OSError as exc:
        raise AfrError(f"cannot write {path}: {exc.strerror}") from None
    finally:
        if os.path.exists(scratch):
            os.unlink(scratch)
    return target


def _no_dates(fmt: str) -> dict[str, None]:
    """Metadata without a creation date: the same plot gives the same file."""
    return {"Date": None} if fmt == "svg" else {"CreationDate": None} if fmt == "pdf" else {}


def _hits(ax, plot: HitCurves) -> None:
    for name, values in plot.curves:
        ax.plot(KS, [100 * v for v in values], marker="o", label=name)
    ax.set_xscale("log")
    ax.set_xticks(KS, [str(k) for k in KS])
    ax.set_xlabel("k")
    ax.set_ylabel("hit@k (%)")
    ax.set_ylim(0, 100)
    ax.set_title(plot.title)
    ax.grid(True, alpha=0.3)
    ax.legend(fontsize="small", ncols=2 if len(plot.curves) > 6 else 1)


def _win_loss(ax, plot: WinLoss) -> None:
    values = [d for _, d in plot.deltas]
    colours = ["tab:green" if d > 0 else "tab:red" if d < 0 else "tab:gray" for d in values]
    ax.bar(range(len(values)), values, color=colours, width=1.0)
    ax.axhline(0, color="black", linewidth=0.8)
    ax.set_xlabel(f"questions ({len(values)}), B's best first")
    ax.set_ylabel(f"{plot.metric}: B − A")
    ax.set_title(f"B = {plot.b} vs A = {plot.a}: B better on {plot.b_better}, A better on "
                 f"{plot.a_better}, tied on {plot.ties}")
    ax.set_xticks([])


def _latency(ax, plot: Latency) -> None:
    names = [step for step, _ in plot.steps]
    data = [[max(s, 1e-6) * 1000 for s in values] for _, values in plot.steps]
    try:
        ax.boxplot(data, orientation="horizontal")
    except TypeError:  # matplotlib before 3.10
        ax.boxplot(data, vert=False)
    ax.set_yticks(range(1, len(names) + 1), names)
    ax.invert_yaxis()  # the steps top to bottom, in the order they run
    ax.set_xscale("log")
    ax.set_xlabel("milliseconds per question (log scale)")
    ax.set_title(plot.title)
    ax.grid(True, axis="x", alpha=0.3)
