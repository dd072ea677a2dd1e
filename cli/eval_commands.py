"""`afr eval`: run a question set (resumable), list, show, export and compare runs."""

from __future__ import annotations

import sys
from pathlib import Path

import click

from afr.errors import AfrError

from .context import Context, aside, error, handle_errors, note, pass_ctx
from .eval_plot import plot_cmd
from .eval_refs import run_and_variant
from .exit_codes import llm_exit_code
from .hints import command
from .options import given, settings_options
from .output import json_text


class EvalGroup(click.Group):
    """`afr eval SOURCE …` and `afr eval --resume ID` mean `afr eval run …`; the words
    list, show, export, compare, plot, delete and run name subcommands (for a question
    file called like one of them, write `afr eval run ./list`)."""

    def parse_args(self, ctx: click.Context, args: list[str]) -> list[str]:
        if args and args[0] not in self.commands and args[0] not in ("-h", "--help"):
            args = ["run", *args]
        return super().parse_args(ctx, args)


@click.group(cls=EvalGroup)
def eval() -> None:  # noqa: A001 - the command is called eval
    """Evaluate retrieval on a question set: hit@1/5/10/20, recall@20 and MRR (STaRK's
    definitions), the paper's ablations (steps 1+7, 1–5, 1–6, 1–7, 1–8) from one ask per
    question, sweeps, per-step latency and LLM cost. Results live in the store
    (eval_runs, eval_results, eval_variants). `afr eval SOURCE …` means `afr eval run
    SOURCE …`.

    \b
    Examples:
      afr eval demo --offline                       # the bundled demo's questions
      afr eval ./my-skb --limit 100 --concurrency 4 # questions.csv of an SKB directory
      afr eval ./stark/qa/prime --split test --sample 500 --seed 1 --reranker listwise
      afr eval ./bench.csv --replay cypher          # Cypher from a column, no LLM
      afr eval --resume 3f2a9c                      # carry on after Ctrl-C or a crash
      afr eval list ; afr eval show 3f2a9c ; afr eval compare 3f2a9c 81be07
      afr eval export 3f2a9c --csv results.csv
      afr eval plot 3f2a9c 81be07 -o runs.svg     # hit@k, wins and losses, latency
      afr eval delete 3f2a9c
    """


@eval.command("run")
@click.argument("source", required=False, metavar="SOURCE")
@click.option("--resume", "resume", metavar="EVAL_ID",
              help="Carry on with an earlier run (same settings); finished questions are "
                   "kept, failed ones asked again, LLM calls come from the cache.")
@click.option("--split", type=click.Choice(["train", "val", "test", "test-0.1", "human"]),
              help="STaRK split (split/NAME.index; human: stark_qa_human_generated_eval.csv).")
@click.option("--limit", type=click.IntRange(1), help="Only the first N questions.")
@click.option("--sample", type=click.IntRange(1), help="A random sample of N questions.")
@click.option("--seed", default=0, show_default=True, help="Seed of --sample.")
@click.option("--concurrency", default=1, show_default=True, type=click.IntRange(1, 64),
              help="Questions in flight at once (threads sharing one store and LLM client).")
@click.option("--name", help="A label for the run (usable instead of its id).")
@click.option("--max-llm-failures", default=5, show_default=True, type=click.IntRange(0),
              metavar="N",
              help="Stop (the run stays resumable) after N questions in a row lost to the "
                   "LLM: unreachable, timed out, or refusing access. 0: never stop.")
@click.option("--replay", metavar="COLUMN",
              help="Take each question's Cypher from this column of the question file (and "
                   "its target_type column if there is one) instead of steps 1–2.")
@click.option("--sweep", "sweeps", multiple=True, metavar="KNOB=V1,V2",
              help="Extra variants from the same asks: alpha=… (recombined strands), "
                   "l_max=… (re-grounded, no LLM), reranker=… (reranked; calls cached). "
                   "Repeatable.")
@click.option("--methods", metavar="M1,M2",
              help="Run these methods too, side by side with --method over the same "
                   "questions (af, vss, bm25, hybrid, …); the same as --sweep method=M1,M2.")
@settings_options(flags={"rerank.concurrency": "--rerank-concurrency"})
@click.option("--json", "as_json", is_flag=True, help="Print the summary as JSON.")
@pass_ctx
@handle_errors
def run_cmd(ctx: Context, source: str | None, resume: str | None, split: str | None,
            limit: int | None, sample: int | None, seed: int, concurrency: int,
            name: str | None, max_llm_failures: int, replay: str | None,
            sweeps: tuple[str, ...], methods: str | None, settings, as_json: bool) -> None:
    """Ask every question of SOURCE and score the answers.

    SOURCE is an SKB directory with questions.csv, a CSV file (id,query,answer_ids), a
    STaRK QA directory (stark_qa/stark_qa.csv and split/*.index), or the word `demo`.
    Use the store that holds the SKB (--db). Ctrl-C stops cleanly; resume with
    `afr eval --resume ID`.

    \b
    Exit codes:
      0    the run finished (questions an LLM failure degraded are counted as such)
      1    error
      3    stopped after --max-llm-failures questions in a row lost to an unreachable
           or unanswering LLM, or every question asked was lost to it (resumable)
      4    the same, with the LLM refusing access (HTTP 401/403/404)
      130  interrupted (Ctrl-C; resumable)
    """
    from afr.evaluate import run_eval

    from .eval_format import format_summary

    def started(run, questions: int, resumed: bool) -> None:
        click.echo(f"eval {run.eval_id}: {questions} questions"
                   + (f" (resuming, status was {run.status})" if resumed else ""), err=True)

    store = ctx.open()
    session = run_eval(store, source, resume=resume, settings=settings, name=name, split=split,
                       limit=limit, sample=sample, seed=seed, replay=replay, sweeps=sweeps,
                       methods=methods,
                       concurrency=concurrency if given("concurrency") else None,
                       max_llm_failures=max_llm_failures,
                       progress=ctx.progress, note=note, started=started)
    eval_id = session.run.eval_id
    if as_json:
        click.echo(json_text(session.summary))
    else:
        click.echo(format_summary(session.summary))
    report = session.report
    if report.stopped_for_llm or report.all_lost_to_llm:
        what = (f"stopped after {report.llm_lost} questions in a row lost to the LLM"
                if report.stopped_for_llm else
                f"all {report.asked} questions asked were lost to the LLM")
        error(f"{what} ({report.llm_lost_error}); {report.done} of {session.questions} "
              "questions done; once the LLM answers, resume with: "
              + command("eval.resume", "eval", "--resume", eval_id))
        store.close()
        sys.exit(llm_exit_code(report.llm_lost_kind))
    if session.interrupted:
        click.echo(f"afr: interrupted after {session.report.done} of {session.questions} "
                   "questions; resume with: "
                   + command("eval.resume", "eval", "--resume", eval_id), err=True)
        store.close()
        sys.exit(130)
    aside(f"\neval {eval_id}: the summary again: "
          + command("eval.show", "eval", "show", eval_id))
    aside(f"eval {eval_id}: every question as CSV: "
          + command("eval.export", "eval", "export", eval_id, "--csv", f"eval-{eval_id}.csv"))


@eval.command("list")
@click.option("--limit", default=50, show_default=True, type=click.IntRange(1),
              help="Runs to list.")
@click.option("--json", "as_json", is_flag=True, help="The list as JSON.")
@pass_ctx
@handle_errors
def list_cmd(ctx: Context, limit: int, as_json: bool) -> None:
    """The store's eval runs, newest first."""
    from afr.evaluate import list_eval_runs

    from .output import format_table

    store = ctx.open(read_only=True)
    items = list_eval_runs(store, limit=limit)
    if as_json:
        click.echo(json_text(items))
        return
    if not items:
        note("no eval runs in this store")
        return
    # Percent, like the summaries of `eval run` and `eval show`; JSON keeps fractions.
    click.echo(format_table(
        ["eval", "created", "name", "source", "split", "status", "done", "hit@1 %", "MRR %"],
        [[i["eval_id"], i["created_at"], i["name"], Path(str(i["source"])).name, i["split"],
          i["status"], f"{i['done']}/{i['questions']}",
          None if i["hit@1"] is None else round(100 * i["hit@1"], 1),
          None if i["mrr"] is None else round(100 * i["mrr"], 1)] for i in items]))


@eval.command("delete")
@click.argument("eval_ref", metavar="EVAL_ID")
@pass_ctx
@handle_errors
def delete_cmd(ctx: Context, eval_ref: str) -> None:
    """Delete a run: its question rows, its lists and the run log of its questions (the
    LLM call cache stays). Refused while the run is running in a live process.
    EVAL_ID may be a unique prefix of the id, or the run's name."""
    from afr.evaluate import delete_eval_run

    store = ctx.open(write=True)
    run, questions, runs = delete_eval_run(store, eval_ref)
    label = run.eval_id + (f" ({run.name})" if run.name else "")
    click.echo(f"deleted eval {label}: {questions} question rows, {runs} logged runs",
               err=True)


@eval.command("show")
@click.argument("eval_ref", metavar="EVAL_ID")
@click.option("--json", "as_json", is_flag=True, help="The summary as JSON.")
@pass_ctx
@handle_errors
def show_cmd(ctx: Context, eval_ref: str, as_json: bool) -> None:
    """The summary of one run: metrics per variant, step latency, LLM cost."""
    from afr.evaluate import find_eval_run, summarize

    from .eval_format import format_summary

    store = ctx.open(read_only=True)
    run = find_eval_run(store, eval_ref)
    summary = summarize(store, run)
    if as_json:
        summary["config"] = run.settings.__dict__
        click.echo(json_text(summary))
    else:
        click.echo(format_summary(summary))


@eval.command("export")
@click.argument("eval_ref", metavar="EVAL_ID")
@click.option("--csv", "csv_path", type=click.Path(dir_okay=False, writable=True),
              help="Write one row per question (lists as JSON) to this CSV file ('-': stdout).")
@click.option("--json", "json_path", type=click.Path(dir_okay=False, writable=True),
              help="Write the summary and every question, with each variant's ranked list, "
                   "to this JSON file ('-': stdout).")
@pass_ctx
@handle_errors
def export_cmd(ctx: Context, eval_ref: str, csv_path: str | None,
               json_path: str | None) -> None:
    """Per question: id, query, gold, ranked list, metrics, status, error."""
    from afr.evaluate import EXPORT_COLUMNS, export_rows, find_eval_run, summarize

    from .output import to_csv

    if not csv_path and not json_path:
        raise AfrError("say where to: --csv FILE and/or --json FILE")
    store = ctx.open(read_only=True)
    run = find_eval_run(store, eval_ref)
    if csv_path:
        rows = export_rows(store, run)
        _write(csv_path, to_csv(EXPORT_COLUMNS, [[r[c] for c in EXPORT_COLUMNS]
                                                 for r in rows]))
    if json_path:
        data = {"summary": summarize(store, run), "config": run.settings.__dict__,
                "questions": export_rows(store, run, with_variants=True)}
        _write(json_path, json_text(data) + "\n")


def _write(path: str, text: str) -> None:
    if path == "-":
        click.echo(text, nl=False)
        return
    try:
        Path(path).write_text(text, encoding="utf-8")
    except OSError as exc:
        raise AfrError(f"cannot write {path}: {exc.strerror}") from None
    click.echo(f"wrote {path}", err=True)


@eval.command("compare")
@click.argument("a_ref", metavar="A")
@click.argument("b_ref", metavar="B")
@click.option("--examples", default=5, show_default=True, type=click.IntRange(0),
              help="Questions to list per win/loss kind.")
@click.option("--json", "as_json", is_flag=True, help="The comparison as JSON.")
@pass_ctx
@handle_errors
def compare_cmd(ctx: Context, a_ref: str, b_ref: str, examples: int, as_json: bool) -> None:
    """Two runs side by side: metrics per variant and per-question wins and losses
    (hit@1 and MRR of the final lists).

    A or B may name one list of a run as EVAL_ID@VARIANT — another method of the same
    run (`@method=kar`), a plain method (`@bm25`) or an ablation (`@1-7`) — to compare
    methods question by question.

    \b
    Examples:
      afr eval compare 3f2a9c 81be07
      afr eval compare 3f2a9c@bm25 3f2a9c@1-8
    """
    from afr.evaluate import compare

    from .eval_format import format_compare

    store = ctx.open(read_only=True)
    (a, a_variant), (b, b_variant) = (run_and_variant(store, ref) for ref in (a_ref, b_ref))
    data = compare(store, a, b, a_variant=a_variant, b_variant=b_variant)
    if as_json:
        data.pop("queries")
        click.echo(json_text(data))
    else:
        click.echo(format_compare(data, examples=examples))


eval.add_command(plot_cmd)

COMMANDS = [eval]
