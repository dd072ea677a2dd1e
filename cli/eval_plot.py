"""`afr eval plot`: hit@k curves, per-question wins and losses, step latency — as text in
the terminal, or as an SVG, PNG or PDF file (matplotlib, the optional extra `plot`)."""

from __future__ import annotations

import click

from .context import Context, UsageProblem, handle_errors, note, pass_ctx


@click.command("plot")
@click.argument("refs", nargs=-1, required=True, metavar="RUN...")
@click.option("--kind", "kinds", multiple=True,
              type=click.Choice(["hits", "winloss", "latency"]),
              help="What to draw (repeatable): hits = hit@k curves per list, winloss = "
                   "per-question difference of B against A (two RUNs), latency = the "
                   "step-latency distribution. Default: all that apply.")
@click.option("--metric", default="mrr", show_default=True,
              type=click.Choice(["mrr", "hit@1", "hit@5", "hit@10", "hit@20", "recall@20"]),
              help="The metric of the win/loss plot.")
@click.option("-o", "--output", metavar="FILE",
              help="Write the plots to FILE (.svg, .png or .pdf; needs matplotlib). "
                   "Without it they are drawn as text.")
@pass_ctx
@handle_errors
def plot_cmd(ctx: Context, refs: tuple[str, ...], kinds: tuple[str, ...], metric: str,
             output: str | None) -> None:
    """Draw one or more runs: the hit@k curves of each list of one run (or of the final
    lists of several), the per-question wins and losses of B against A (two runs), and
    how long each step took per question.

    A RUN may name one list of a run as EVAL_ID@VARIANT, as in `afr eval compare`
    (`@1-7`, `@method=kar`, `@bm25`).

    \b
    Examples:
      afr eval plot 3f2a9c                      # as text
      afr eval plot 3f2a9c 81be07 -o runs.svg   # hit@k, win/loss and latency, one file
      afr eval plot 3f2a9c@bm25 3f2a9c@1-8 --kind winloss --metric hit@1 -o bm25.png
    """
    from afr.evaluate import draw_text, file_format, plot_data, write_plots

    from .eval_refs import run_and_variant

    if output:
        file_format(output)  # a name afr cannot write: before any work
    chosen = tuple(kinds) or (("hits", "winloss", "latency") if len(refs) == 2
                              else ("hits", "latency"))
    if "winloss" in chosen and len(refs) != 2:
        raise UsageProblem(f"--kind winloss compares two runs or lists (A B), not "
                           f"{len(refs)}")
    store = ctx.open(read_only=True)
    plots = plot_data(store, [run_and_variant(store, ref) for ref in refs], chosen,
                      metric=metric)
    if output is None:
        click.echo(draw_text(plots))
        return
    written = write_plots(plots, output)
    note(f"wrote {written} ({', '.join(chosen)})")
