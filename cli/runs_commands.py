"""`afr runs`: browse the run log — recent asks, and one ask in full."""

from __future__ import annotations

import json

import click

from .context import Context, aside, handle_errors, pass_ctx
from .output import format_table


class RunsGroup(click.Group):
    """``afr runs`` lists; ``afr runs show ID`` shows one."""


@click.group(cls=RunsGroup, invoke_without_command=True)
@click.option("--limit", default=20, show_default=True, type=click.IntRange(1),
              help="Runs to list, newest first.")
@click.option("--all", "with_eval", is_flag=True,
              help="Also the runs of `afr eval` (one per question).")
@click.option("--json", "as_json", is_flag=True, help="The list as JSON.")
@click.pass_context
@handle_errors
def runs(click_ctx: click.Context, limit: int, with_eval: bool, as_json: bool) -> None:
    """The store's run log, newest first: when, by which method, how (llm/offline),
    status, question and top answer of each `afr ask`. `afr runs show ID` shows one run in full.

    \b
    Examples:
      afr runs
      afr runs --all --limit 50 --json
      afr runs show 9dd881d0
    """
    if click_ctx.invoked_subcommand is not None:
        return
    from afr.pipeline import list_runs

    ctx: Context = click_ctx.obj
    store = ctx.open(read_only=True)
    items = list_runs(store, limit=limit, with_eval=with_eval)
    if as_json:
        click.echo(json.dumps({"store": store.location,
                               "runs": [i.to_dict() for i in items]},
                              indent=2, ensure_ascii=False))
        return
    aside(f"runs in {store.location}")
    if not items:
        click.echo("no runs logged in this store yet (afr ask logs each run)", err=True)
        return
    click.echo(format_table(
        ["run", "time", "method", "mode", "status", "question", "top answer", "answers"],
        [[i.run_id[:12], i.created_at.strftime("%Y-%m-%d %H:%M:%S") if i.created_at else "",
          i.method, i.mode + (" (eval)" if i.eval_id else ""), i.status, i.question,
          i.top_answer, i.answers] for i in items]))


@runs.command("show")
@click.argument("run_id", metavar="ID")
@click.option("--candidates", default=5, show_default=True, type=click.IntRange(1, 1000),
              help="Candidates shown per symbol.")
@click.option("--against", "other_id", metavar="ID",
              help="Show the settings that differ from this other run's (default: those "
                   "that differ from afr's defaults).")
@click.option("--json", "as_json", is_flag=True, help="The run as JSON.")
@pass_ctx
@handle_errors
def show(ctx: Context, run_id: str, candidates: int, other_id: str | None,
         as_json: bool) -> None:
    """One run in full: question, mode, target type, Cypher, the settings it ran with
    (those not afr's defaults, or --against another run's), step timings, notes, each
    symbol's candidates and the answers with strand, level, score and provenance. ID
    may be a prefix of the run id."""
    from afr.pipeline import find_run, run_details, settings_differences

    store = ctx.open(read_only=True)
    run = run_details(store, find_run(store, run_id), per_symbol=candidates)
    other = run_details(store, find_run(store, other_id)) if other_id else None
    differ = settings_differences(run, other)
    if as_json:
        data = run.to_dict()
        data["settings_differ"] = [{"setting": p, "this": a, "other": b}
                                   for p, a, b in differ]
        click.echo(json.dumps(data, indent=2, ensure_ascii=False, default=str))
        return
    when = run.created_at.strftime("%Y-%m-%d %H:%M:%S") if run.created_at else "?"
    click.echo(f"run {run.run_id} · {when} · {run.mode} · {run.status}"
               + (f" · eval {run.eval_id} question {run.question_id}" if run.eval_id else ""))
    click.echo(f"question:     {run.question}")
    click.echo(f"method:       {run.method}")
    click.echo(f"target type:  {run.target_type or 'unknown'}")
    against = f"run {other.run_id[:12]}" if other is not None else "afr's defaults"
    if differ:
        click.echo(f"settings (where they differ from {against}):")
        for path, mine, theirs in differ:
            click.echo(f"  {path} = {mine!r}  ({against}: {theirs!r})")
    else:
        click.echo(f"settings:     the same as {against}")
    click.echo("cypher:")
    for line in (run.cypher or "(none)").splitlines():
        click.echo(f"  {line}")
    if run.timings:
        click.echo("steps: " + ", ".join(f"{k} {float(v) * 1000:.1f} ms"
                                         for k, v in run.timings.items()))
    click.echo(f"LLM: {run.llm_calls} calls, {run.llm_tokens} tokens")
    for warning in run.warnings:
        click.echo(f"  note: {warning}")
    for var, cands in run.symbols.items():
        click.echo(f"\nsymbol {var}: first {len(cands)} candidates")
        click.echo(format_table(["rank", "level", "candidate", "type", "score", "id"],
                                [[c["rank"], c["level"], c["name"] or c["ext_id"], c["type"],
                                  None if c["score"] is None else round(c["score"], 3),
                                  c["ext_id"]] for c in cands]))
    click.echo("\nanswers:")
    if not run.answers:
        click.echo("  (none)")
        return
    click.echo(format_table(
        ["#", "answer", "type", "strand", "level", "score", "linked by", "id"],
        [[a["rank"], a["name"] or a["ext_id"], a["type"], a["source"],
          "" if a["level"] is None else a["level"],
          "" if a["score"] is None else round(a["score"], 3), _linked_by(a["provenance"]),
          a["ext_id"]] for a in run.answers]))


def _linked_by(provenance: dict) -> str:
    """``c1: ValueError (rank 1)`` for each constant that links a graph answer."""
    parts = []
    for var, witnesses in (provenance.get("linked_by") or {}).items():
        names = ", ".join(f"{w.get('name') or w['node']} (rank {w['rank']})" for w in witnesses)
        parts.append(f"{var}: {names}")
    sage = provenance.get("sage") or {}
    if sage.get("role") == "neighbour":  # SAGE: the seed it is similar to
        parts.append(f"similar to {sage.get('via_name') or sage['via_seed']} ({sage['signal']} "
                     f"{float(sage['sim']):.2f})")
    return "; ".join(parts)


@runs.command("prune")
@click.option("--before", "before", required=True, metavar="DATE",
              type=click.DateTime(formats=["%Y-%m-%d", "%Y-%m-%dT%H:%M:%S",
                                           "%Y-%m-%d %H:%M:%S"]),
              help="Remove the asks logged before this time (YYYY-MM-DD[ HH:MM:SS], as the "
                   "store records times).")
@click.option("--dry-run", is_flag=True, help="Only count what would be removed.")
@pass_ctx
@handle_errors
def prune(ctx: Context, before, dry_run: bool) -> None:
    """Remove old asks from the run log (runs and their symbol, answer and KAR rows), in
    one transaction. The asks of eval runs stay with their run (`afr eval delete ID`
    removes them); so does the LLM call cache.

    \b
    Examples:
      afr runs prune --before 2025-01-01 --dry-run
      afr runs prune --before 2025-01-01
    """
    from afr.pipeline import prune_runs

    store = ctx.open(read_only=dry_run, write=not dry_run)
    done = prune_runs(store, before, dry_run=dry_run)
    verb = "would remove" if dry_run else "removed"
    kept = (f"; {done.kept} asks of eval runs stay with their run (afr eval delete ID)"
            if done.kept else "")
    click.echo(f"{verb} {done.runs} asks logged before {before:%Y-%m-%d %H:%M:%S}{kept}",
               err=True)


COMMANDS = [runs]
