"""`afr eval`: run a question set (resumable), list, show, export and compare runs."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import click

from afr.errors import AfrError

from .ask_commands import (
    _llm_options,
    _open_for_questions,
    retrieval_options,
    step_overrides,
)
from .context import Context, handle_errors, pass_ctx


class EvalGroup(click.Group):
    """`afr eval SOURCE …` and `afr eval --resume ID` mean `afr eval run …`; the words
    list, show, export, compare and run name subcommands (for a question file called like
    one of them, write `afr eval run ./list`)."""

    def parse_args(self, ctx: click.Context, args: list[str]) -> list[str]:
        if args and args[0] not in self.commands and args[0] not in ("-h", "--help"):
            args = ["run", *args]
        return super().parse_args(ctx, args)


@click.group(cls=EvalGroup)
def eval() -> None:  # noqa: A001 - the command is called eval
    """Evaluate retrieval on a question set: hit@1/5/10/20, recall@20 and MRR (STaRK's
    definitions), the paper's ablations (steps 1+7, 1–5, 1–6, 1–7, 1–8) from one ask per
    question, sweeps, per-step latency and LLM cost. Results live in the store
    (eval_runs, eval_results, eval_variants).

    \b
    Examples:
      afr eval demo --offline                       # the bundled demo's questions
      afr eval ./my-skb --limit 100 --concurrency 4 # questions.csv of an SKB directory
      afr eval ./stark/qa/prime --split test --sample 500 --seed 1 --reranker listwise
      afr eval ./bench.csv --replay cypher          # Cypher from a column, no LLM
      afr eval --resume 3f2a9c                      # carry on after Ctrl-C or a crash
      afr eval list ; afr eval show 3f2a9c ; afr eval compare 3f2a9c 81be07
      afr eval export 3f2a9c --csv results.csv
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
@click.option("--replay", metavar="COLUMN",
              help="Take each question's Cypher from this column of the question file (and "
                   "its target_type column if there is one) instead of steps 1–2.")
@click.option("--sweep", "sweeps", multiple=True, metavar="KNOB=V1,V2",
              help="Extra variants from the same asks: alpha=… (recombined strands), "
                   "l_max=… (re-grounded, no LLM), reranker=… (reranked; calls cached). "
                   "Repeatable.")
@retrieval_options
@click.option("--rerank-concurrency", default=8, show_default=True,
              type=click.IntRange(1, 64), help="Parallel calls of the pointwise reranker.")
@_llm_options
@click.option("--prompts", "prompts_dir", type=click.Path(file_okay=False, exists=True),
              help="A folder of your own prompt templates.")
@click.option("--no-log", is_flag=True, help="Do not write runs/run_answers per question.")
@click.option("--json", "as_json", is_flag=True, help="Print the summary as JSON.")
@pass_ctx
@handle_errors
def run_cmd(ctx: Context, source: str | None, resume: str | None, split: str | None,
            limit: int | None, sample: int | None, seed: int, concurrency: int,
            name: str | None, replay: str | None, sweeps: tuple[str, ...], k: int,
            l_max: int, alpha: float, mode: str, no_edge_types: bool, reranker: str,
            rerank_concurrency: int, llm_url: str | None, llm_model: str | None,
            offline: bool, no_cache: bool, prompts_dir: str | None, no_log: bool,
            as_json: bool) -> None:
    """Ask every question of SOURCE and score the answers.

    SOURCE is an SKB directory with questions.csv, a CSV file (id,query,answer_ids), a
    STaRK QA directory (stark_qa/stark_qa.csv and split/*.index), or the word `demo`.
    Use the store that holds the SKB (--db). Ctrl-C stops cleanly; resume with
    `afr eval --resume ID`.
    """
    from afr.evaluate.report import store_summary
    from afr.evaluate.runner import Evaluator
    from afr.evaluate.runs import EvalSettings, create_run, find_run, source_path
    from afr.evaluate.variants import parse_sweeps
    from afr.pipeline.ask import Pipeline
    from afr.pipeline.config import AskConfig

    from .eval_format import format_summary

    def note(message: str) -> None:
        click.echo(f"note: {message}", err=True)

    store = _open_for_questions(ctx)
    store.require_initialised()
    if resume:
        if source:
            raise AfrError("give either SOURCE or --resume EVAL_ID, not both")
        run = find_run(store, resume)
        settings = run.settings
        settings.concurrency = concurrency if _given("concurrency") else settings.concurrency
    else:
        if not source:
            raise AfrError("missing SOURCE (a question file or folder, or 'demo'); "
                           "or --resume EVAL_ID")
        llm = {key: value for key, value in (("base_url", llm_url), ("model", llm_model))
               if value}
        step_models, step_effort = step_overrides()  # --step-model / --effort
        config = AskConfig(k=k, l_max=l_max, alpha=alpha, mode=mode,  # type: ignore[arg-type]
                           use_edge_types=not no_edge_types,
                           reranker=reranker,  # type: ignore[arg-type]
                           rerank_concurrency=rerank_concurrency,
                           offline=True if offline else None, use_cache=not no_cache,
                           log=not no_log, llm=llm, prompts_dir=prompts_dir,
                           step_models=step_models)
        config.step_effort.update(step_effort)
        path = source_path(source)
        settings = EvalSettings(source=str(path.resolve()) if path.exists() else source,
                                split=split, limit=limit, sample=sample, seed=seed,
                                replay=replay, sweeps=parse_sweeps(sweeps),
                                concurrency=concurrency)
        _check_skb_name(store, path, note)
        pipeline = Pipeline(store, config)
        # Keep the settings as resolved, so a resume asks the same LLM the same way
        # (the API key stays in the environment, never in the store).
        resolved = pipeline.config.to_dict()
        if pipeline.llm is None:
            resolved["offline"] = True
        else:
            resolved["offline"] = False
            resolved["llm"] = {**resolved.get("llm", {}),
                               "base_url": pipeline.llm.config.base_url,
                               "model": pipeline.llm.config.model}
        settings.ask = resolved
    questions = settings.questions()
    if not questions:
        raise AfrError(f"{settings.source}: no questions to evaluate")
    if resume:
        pipeline = Pipeline(store, settings.ask_config())
    else:
        run = create_run(store, settings, name=name, total=len(questions))
    if pipeline.offline and not settings.replay:
        note("offline mode (no LLM configured): entity linking + schema paths, no reranking")
    if len(questions) > 20:
        # Many searches ahead: a DuckDB store answers them from in-memory matrices
        # (loaded once, a few seconds at PRIME's size); PostgreSQL has its HNSW index.
        from afr.vectors.memory import use_memory_vectors

        use_memory_vectors(store)
    evaluator = Evaluator(store, pipeline, run, questions, note=note)
    click.echo(f"eval {run.eval_id}: {len(questions)} questions"
               + (f" (resuming, status was {run.status})" if resume else ""), err=True)
    report = evaluator.execute(progress=ctx.progress)
    summary = store_summary(store, run.eval_id)
    if as_json:
        click.echo(json.dumps(summary, indent=2, default=str, ensure_ascii=False))
    else:
        click.echo(format_summary(summary))
    if report.interrupted:
        click.echo(f"afr: interrupted after {report.done} of {len(questions)} questions; "
                   f"resume with: afr eval --resume {run.eval_id}", err=True)
        store.close()
        sys.exit(130)
    click.echo(f"\neval {run.eval_id}: afr eval show {run.eval_id} · afr eval export "
               f"{run.eval_id} --csv FILE", err=True)


def _given(param: str) -> bool:
    ctx = click.get_current_context()
    source = ctx.get_parameter_source(param)
    return source is not None and source.name not in ("DEFAULT",)


def _check_skb_name(store, path: Path, note) -> None:
    skb_json = (path if path.is_dir() else path.parent) / "skb.json"
    if not skb_json.is_file():
        return
    try:
        name = json.loads(skb_json.read_text(encoding="utf-8")).get("name")
    except (OSError, ValueError, AttributeError):
        return
    loaded = store.skb_name()
    if name and loaded and name != loaded:
        note(f"the questions belong to SKB {name!r} but the store holds {loaded!r}")


def _open_read(ctx: Context):
    store = ctx.open(read_only=True)
    return store


@eval.command("list")
@click.option("--limit", default=50, show_default=True, type=click.IntRange(1))
@click.option("--json", "as_json", is_flag=True)
@pass_ctx
@handle_errors
def list_cmd(ctx: Context, limit: int, as_json: bool) -> None:
    """The store's eval runs, newest first."""
    from afr.evaluate.runs import list_runs

    from .output import format_table

    store = _open_read(ctx)
    items = list_runs(store, limit=limit)
    if as_json:
        click.echo(json.dumps(items, indent=2, default=str))
        return
    if not items:
        click.echo("no eval runs in this store", err=True)
        return
    click.echo(format_table(
        ["eval", "created", "name", "source", "split", "status", "done", "hit@1", "MRR"],
        [[i["eval_id"], i["created_at"], i["name"], Path(str(i["source"])).name, i["split"],
          i["status"], f"{i['done']}/{i['questions']}",
          None if i["hit@1"] is None else round(100 * i["hit@1"], 1),
          None if i["mrr"] is None else round(i["mrr"], 3)] for i in items]))


@eval.command("show")
@click.argument("eval_ref", metavar="EVAL_ID")
@click.option("--json", "as_json", is_flag=True, help="The summary as JSON.")
@pass_ctx
@handle_errors
def show_cmd(ctx: Context, eval_ref: str, as_json: bool) -> None:
    """The summary of one run: metrics per variant, step latency, LLM cost."""
    from afr.evaluate.report import summarize
    from afr.evaluate.runs import find_run

    from .eval_format import format_summary

    store = _open_read(ctx)
    run = find_run(store, eval_ref)
    summary = summarize(store, run)
    if as_json:
        summary["config"] = run.settings.__dict__
        click.echo(json.dumps(summary, indent=2, default=str, ensure_ascii=False))
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
    from afr.evaluate.report import EXPORT_COLUMNS, export_rows, summarize
    from afr.evaluate.runs import find_run

    from .output import to_csv

    if not csv_path and not json_path:
        raise AfrError("say where to: --csv FILE and/or --json FILE")
    store = _open_read(ctx)
    run = find_run(store, eval_ref)
    if csv_path:
        rows = export_rows(store, run)
        _write(csv_path, to_csv(EXPORT_COLUMNS, [[r[c] for c in EXPORT_COLUMNS]
                                                 for r in rows]))
    if json_path:
        data = {"summary": summarize(store, run), "config": run.settings.__dict__,
                "questions": export_rows(store, run, with_variants=True)}
        _write(json_path, json.dumps(data, indent=2, default=str, ensure_ascii=False) + "\n")


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
@click.option("--json", "as_json", is_flag=True)
@pass_ctx
@handle_errors
def compare_cmd(ctx: Context, a_ref: str, b_ref: str, examples: int, as_json: bool) -> None:
    """Two runs side by side: metrics per variant and per-question wins and losses
    (hit@1 and MRR of the final lists)."""
    from afr.evaluate.report import compare
    from afr.evaluate.runs import find_run

    from .eval_format import format_compare

    store = _open_read(ctx)
    data = compare(store, find_run(store, a_ref), find_run(store, b_ref))
    if as_json:
        data.pop("queries")
        click.echo(json.dumps(data, indent=2, default=str, ensure_ascii=False))
    else:
        click.echo(format_compare(data, examples=examples))


COMMANDS = [eval]
