"""Commands that answer questions: ask (the full pipeline) and cypher (steps 3–5)."""

from __future__ import annotations

import json
import os
from pathlib import Path

import click

from afr.errors import AfrError

from .context import Context, handle_errors, pass_ctx
from .output import format_table


def _open_for_questions(ctx: Context):
    """The chosen store; with no store chosen and none here, the demo (set up on first use)."""
    from afr.store import open_store, resolve_db

    explicit = bool(ctx.db or os.environ.get("AFR_DB"))
    target = resolve_db(ctx.db)
    if not explicit and not Path(target).exists():
        from afr.demo import ensure_demo_store

        target = str(ensure_demo_store(progress=ctx.progress))
    return open_store(target, schema=ctx.schema)


def _remember(name: str):
    def callback(ctx: click.Context, param: click.Parameter, value: tuple[str, ...]) -> None:
        ctx.meta[f"afr.{name}"] = value
    return callback


def step_overrides() -> tuple[dict[str, str], dict[str, str]]:
    """The --step-model and --effort values of the running command: (models, efforts)."""
    from afr.settings import EFFORTS, parse_step_pairs

    meta = click.get_current_context().meta
    models = parse_step_pairs(meta.get("afr.step_model", ()), "--step-model")
    efforts = parse_step_pairs(meta.get("afr.effort", ()), "--effort", EFFORTS)
    return models, efforts


def retrieval_options(f):
    """The method's knobs, shared by ask and eval (defaults reproduce the paper)."""
    options = [
        click.option("-k", "k", default=20, show_default=True, type=click.IntRange(1, 1000),
                     help="Answers handed to the reranker (and returned)."),
        click.option("--l-max", default=100, show_default=True,
                     type=click.IntRange(1, 10000),
                     help="Candidates per constant (scope expansion stops there)."),
        click.option("--alpha", default=2 / 3, show_default="2/3",
                     type=click.FloatRange(0, 1),
                     help="Share of the k answers taken from the graph strand."),
        click.option("--mode", type=click.Choice(["strict", "lenient"]), default="strict",
                     show_default=True, help="strict: symbols filtered by their node type."),
        click.option("--no-edge-types", is_flag=True,
                     help="Let any relation satisfy a triplet."),
        click.option("--reranker",
                     type=click.Choice(["pairwise", "listwise", "pointwise", "none"]),
                     default="pairwise", show_default=True, help="Step 8 (needs an LLM)."),
    ]
    for option in reversed(options):
        f = option(f)
    return f


def _llm_options(f):
    options = [
        click.option("--llm-url", envvar="AFR_LLM_BASE_URL", metavar="URL",
                     help="OpenAI-compatible base URL, e.g. http://localhost:8000/v1 "
                          "[env AFR_LLM_BASE_URL]."),
        click.option("--llm-model", envvar="AFR_LLM_MODEL", metavar="NAME",
                     help="Model name [env AFR_LLM_MODEL]."),
        click.option("--offline", is_flag=True,
                     help="Ignore any configured LLM: offline formalizer, no reranking."),
        click.option("--no-cache", is_flag=True,
                     help="Do not answer LLM calls from the llm_calls cache (still logged)."),
        # Not function arguments: every command with LLM options reads them through
        # step_overrides(), so adding them changes no command's signature.
        click.option("--step-model", multiple=True, metavar="STEP=MODEL", expose_value=False,
                     callback=_remember("step_model"),
                     help="Model for one step (target, cypher, rerank); repeatable. "
                          "Default: --llm-model."),
        click.option("--effort", multiple=True, metavar="STEP=LEVEL", expose_value=False,
                     callback=_remember("effort"),
                     help="Reasoning effort for one step (minimal/low/medium/high); "
                          "repeatable. Default: target=medium cypher=medium rerank=low."),
    ]
    for option in reversed(options):
        f = option(f)
    return f


@click.command()
@click.argument("question")
@retrieval_options
@click.option("--concurrency", default=8, show_default=True, type=click.IntRange(1, 64),
              help="Parallel LLM calls of the pointwise reranker.")
@_llm_options
@click.option("--prompts", "prompts_dir", type=click.Path(file_okay=False, exists=True),
              help="A folder of your own prompt templates overriding afr's (same file names).")
@click.option("--top", default=10, show_default=True, help="Answers to print (table view).")
@click.option("--explain", is_flag=True,
              help="Also show target type, Cypher, query graph, dropped parts, symbol "
                   "candidates, the SQL that ran, timings and LLM tokens.")
@click.option("--json", "as_json", is_flag=True, help="Everything as JSON.")
@click.option("--no-log", is_flag=True, help="Do not write this run to the run-log tables.")
@pass_ctx
@handle_errors
def ask(ctx: Context, question: str, k: int, l_max: int, alpha: float, mode: str,
        no_edge_types: bool, reranker: str, concurrency: int, llm_url: str | None,
        llm_model: str | None, offline: bool, no_cache: bool, prompts_dir: str | None,
        top: int, explain: bool, as_json: bool, no_log: bool) -> None:
    """Answer QUESTION with the Autofocus-Retriever and print the ranked answers.

    With an LLM configured (AFR_LLM_BASE_URL / AFR_LLM_MODEL / AFR_LLM_API_KEY, any
    OpenAI-compatible server), all eight steps run. Without one, afr runs in offline
    mode: the answer type and the Cypher come from entity linking against the store,
    and there is no reranking.

    Every run is logged to the tables runs, run_symbols and run_answers (see the
    README for queries); `--explain` shows what each step did.

    \b
    Examples:
      afr ask "Which exceptions in the json module inherit from ValueError?"
      afr ask "…" --explain
      AFR_LLM_BASE_URL=http://localhost:11434/v1 AFR_LLM_MODEL=qwen3 afr ask "…" --reranker listwise
    """
    from afr.pipeline.ask import Pipeline
    from afr.pipeline.config import AskConfig

    llm = {}
    if llm_url:
        llm["base_url"] = llm_url
    if llm_model:
        llm["model"] = llm_model
    step_models, step_effort = step_overrides()
    config = AskConfig(k=k, l_max=l_max, alpha=alpha, mode=mode,  # type: ignore[arg-type]
                       use_edge_types=not no_edge_types, reranker=reranker,  # type: ignore
                       rerank_concurrency=concurrency, offline=True if offline else None,
                       use_cache=not no_cache, log=not no_log, llm=llm,
                       prompts_dir=prompts_dir, step_models=step_models)
    config.step_effort.update(step_effort)
    store = _open_for_questions(ctx)
    pipeline = Pipeline(store, config)
    result = pipeline.ask(question)
    if as_json:
        click.echo(json.dumps(result.to_dict(), indent=2, default=str, ensure_ascii=False))
        return
    if result.mode == "offline":
        click.echo("offline mode (no LLM configured): entity linking + schema paths, "
                   "no reranking", err=True)
    for warning in result.warnings:
        click.echo(f"note: {warning}", err=True)
    if explain:
        _explain(result)
    rows = [
        (a.rank, a.name or a.ext_id, a.type, a.source,
         "" if a.level is None else a.level,
         "" if a.vss_score is None else round(a.vss_score, 3), a.ext_id)
        for a in result.answers[:top]
    ]
    click.echo(format_table(["#", "answer", "type", "strand", "level", "score", "id"], rows))
    total = sum(result.timings.values())
    click.echo(f"\n{len(result.answers)} answers · target type {result.target_type or '?'} · "
               f"{total:.2f} s · run {result.run_id}" + (" (not logged)" if no_log else ""),
               err=True)


def _explain(result) -> None:
    click.echo(f"target type:  {result.target_type or 'unknown'}")
    click.echo("cypher:")
    for line in (result.cypher or "").splitlines():
        click.echo(f"  {line}")
    click.echo("query graph:")
    click.echo("  " + json.dumps({k: v for k, v in result.query_graph.items() if k != "dropped"},
                                 ensure_ascii=False))
    if result.resolved and result.resolved.dropped:
        click.echo("dropped:")
        for d in result.resolved.dropped:
            click.echo(f"  - {d}")
    if result.symbols:
        click.echo("symbols:")
        for var, s in result.symbols.items():
            if s.constant:
                click.echo(f"  {var}: search {s.search!r} → {len(s.ids)} candidates "
                           f"({s.exact} exact name matches)")
            elif s.allowed is not None:
                click.echo(f"  {var}: {len(s.allowed)} nodes pass its filters")
            for note in s.notes:
                click.echo(f"    note: {note}")
    if result.grounding is not None:
        g = result.grounding
        click.echo(f"grounding: {len(g.answers)} answers, stopped at level "
                   f"{g.final_level} of {g.levels}")
        for stmt in g.sql:
            click.echo("  sql: " + " ".join(stmt.split())[:2000])
    click.echo("timings: " + ", ".join(f"{k} {v * 1000:.1f} ms"
                                       for k, v in result.timings.items()))
    click.echo(f"LLM: {result.llm_calls} calls, {result.llm_tokens} tokens, "
               f"{result.rerank_prompts} rerank prompts")
    click.echo("")


@click.command()
@click.argument("cypher_text", metavar="CYPHER")
@click.option("--json", "as_json", is_flag=True, help="Print the parsed query graph as JSON.")
@click.option("--sql", "show_sql", is_flag=True, help="Print the grounding SQL.")
@click.option("--run", "run_it", is_flag=True, help="Run steps 4–5 and list the grounded answers.")
@click.option("--mode", type=click.Choice(["strict", "lenient"]), default="strict",
              show_default=True)
@click.option("-k", "k", default=20, show_default=True, type=click.IntRange(1, 100000))
@click.option("--l-max", default=100, show_default=True, type=click.IntRange(1, 10000))
@click.option("--top", default=20, show_default=True)
@pass_ctx
@handle_errors
def cypher(ctx: Context, cypher_text: str, as_json: bool, show_sql: bool, run_it: bool,
           mode: str, k: int, l_max: int, top: int) -> None:
    """Parse a Cypher query (no LLM) and show what afr makes of it.

    Without options: the query graph in short. --json: the full query graph.
    --sql: the SQL that grounds it. --run: run symbol retrieval and grounding and
    list the answers with their scope levels.

    \b
    Example:
      afr cypher "MATCH (c:class)-[:class_inherits_from_class]-(b:class {name: 'ValueError'}) RETURN c" --run
    """
    from afr.cypher import parse_cypher
    from afr.text import clean_text

    graph = parse_cypher(clean_text(cypher_text))
    if as_json and not (show_sql or run_it):
        click.echo(json.dumps(graph.to_dict(), indent=2, ensure_ascii=False))
        return
    if not graph.symbols:
        reasons = "; ".join(d.reason for d in graph.dropped) or "no MATCH pattern found"
        raise AfrError(f"nothing usable in that Cypher: {reasons}")
    if not (show_sql or run_it):
        _print_graph(graph.to_dict())
        return
    from afr.ground import compile_grounding
    from afr.pipeline.ask import Pipeline
    from afr.pipeline.config import AskConfig

    store = _open_for_questions(ctx)
    # The same steps 3–5 as `afr ask`, with the same settings, offline and unlogged.
    pipeline = Pipeline(store, AskConfig(mode=mode, k=k, l_max=l_max,  # type: ignore[arg-type]
                                         offline=True, log=False))
    steps = pipeline.ground_cypher(cypher_text)
    for d in steps.resolved.dropped:
        click.echo(f"note: {d}", err=True)
    gquery = steps.query
    schema = pipeline.schema
    if gquery is None:
        raise AfrError("nothing constrains the target: no grounding to do")
    if show_sql:
        compiled = compile_grounding(gquery, schema_directed=schema.directed,
                                     dialect=store.dialect, k=k, l_max=l_max)
        for stmt in compiled.statements:
            click.echo(stmt.rstrip() + ";")
        if as_json:
            click.echo(json.dumps(compiled.params, default=str))
    if run_it:
        res = steps.result
        assert res is not None
        ids = [n for n, _ in res.answers]
        details = {int(r[0]): r for r in store.run("runlog/answer_details.sql", {"ids": ids})}
        rows = [(i, details[n][3] or details[n][1], details[n][2], lvl, details[n][1])
                for i, (n, lvl) in enumerate(res.answers[:top], 1)]
        click.echo(format_table(["#", "answer", "type", "level", "id"], rows))
        click.echo(f"\n{len(res.answers)} answers, final level {res.final_level}, "
                   f"{res.seconds * 1000:.1f} ms", err=True)


def _print_graph(data: dict) -> None:
    click.echo(f"target: {data['target']}")
    for s in data["symbols"]:
        conds = ", ".join(f"{c['attribute']} {c['op']} {c['value']!r}" for c in s["conditions"])
        kind = "constant" if s["constant"] else "variable"
        click.echo(f"  ({s['var']}:{s['label'] or ''}) {kind}" + (f" where {conds}" if conds
                                                                  else ""))
    for t in data["triplets"]:
        arrow = "->" if t["directed"] else "-"
        hops = "" if t["max_hops"] == 1 else f"*{t['min_hops']}..{t['max_hops']}"
        click.echo(f"  ({t['head']})-[:{t['edge'] or ''}{hops}]{arrow}({t['tail']})")
    for d in data["dropped"]:
        click.echo(f"  dropped: {d['text']!r} — {d['reason']}")


COMMANDS = [ask, cypher]
