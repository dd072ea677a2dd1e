"""Commands that answer questions: ask (the full pipeline) and cypher (steps 3–5)."""

from __future__ import annotations

import json

import click

from afr.errors import AfrError

from .context import Context, handle_errors, pass_ctx
from .options import (
    ask_config,
    ask_options,
    explicit,
    k_option,
    l_max_option,
    mode_option,
    no_edge_types_option,
)
from .output import format_table

# One line under the answers table: what its columns mean.
LEGEND = ("strand: graph = found by grounding the query graph, vss = by vector search, "
          "both = by both · level: scope level of the graph match (1 = the named "
          "entities' best matches; higher = wider, weaker) · score: the question's cosine "
          "similarity to the answer")
# Between the answers linked to exact name matches and those from expanded scope.
EXACT_SEPARATOR = "    ·· above: linked to exact name matches · below: expanded scope or " \
                  "vector search ··"

@click.command()
@click.argument("question")
@ask_options(concurrency_flag="--concurrency")
@click.option("--top", default=10, show_default=True, help="Answers to print (table view).")
@click.option("--explain", is_flag=True,
              help="Also show target type, Cypher, query graph, dropped parts, symbol "
                   "candidates, the SQL that ran, timings and LLM tokens.")
@click.option("--json", "as_json", is_flag=True, help="Everything as JSON.")
@pass_ctx
@handle_errors
def ask(ctx: Context, question: str, config, top: int, explain: bool, as_json: bool) -> None:
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
    from afr.pipeline.confidence import assess

    store = ctx.open()
    result = Pipeline(store, config).ask(question)
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
    confidence = assess(result)
    for note in confidence.notes:
        click.echo(f"note: {note}", err=True)
    shown = result.answers[:top]
    rows = [
        (a.rank, a.name or a.ext_id, a.type, a.source,
         "" if a.level is None else a.level,
         "" if a.vss_score is None else round(a.vss_score, 3), a.ext_id)
        for a in shown
    ]
    lines = format_table(["#", "answer", "type", "strand", "level", "score", "id"],
                         rows).splitlines()
    exact = [i for i, a in enumerate(shown) if confidence.rests_on_exact_names(a)]
    if exact and exact[-1] < len(shown) - 1:
        lines.insert(2 + exact[-1] + 1, EXACT_SEPARATOR)
    click.echo("\n".join(lines))
    if shown:
        click.echo(LEGEND)
    total = sum(result.timings.values())
    click.echo(f"\n{len(result.answers)} answers · target type {result.target_type or '?'} · "
               f"{total:.2f} s · run {result.run_id}" + ("" if config.log else " (not logged)"),
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
@click.option("--json", "as_json", is_flag=True, help="Print the parsed query graph as JSON "
              "(with --sql: also the SQL parameters).")
@click.option("--sql", "show_sql", is_flag=True, help="Print the grounding SQL.")
@click.option("--run", "run_it", is_flag=True, help="Run steps 4–5 and list the grounded answers.")
@mode_option
@no_edge_types_option
@click.option("--target-type", metavar="TYPE",
              help="The answer type, as step 1 of `afr ask` predicts it: in strict mode it "
                   "types a target the Cypher leaves without a known label.")
@k_option(max_k=100000, help="Answers wanted: scope expansion stops once "
          "grounding has this many.")
@l_max_option
@click.option("--top", default=20, show_default=True, help="Answers to print (with --run).")
@pass_ctx
@handle_errors
def cypher(ctx: Context, cypher_text: str, as_json: bool, show_sql: bool, run_it: bool,
           mode: str, no_edge_types: bool, target_type: str | None, k: int, l_max: int,
           top: int) -> None:
    """Parse a Cypher query (no LLM) and show what afr makes of it.

    Without options: the query graph in short. --json: the full query graph.
    --sql: the SQL that grounds it. --run: run symbol retrieval and grounding and
    list the answers with their scope levels — the same steps 3–5, with the same
    switches, as `afr ask`.

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
    from afr.ground import compile_grounding, edge_directions
    from afr.pipeline.ask import Pipeline

    store = ctx.open()
    # The same steps 3–5 as `afr ask`, with the same settings, offline and unlogged.
    config = ask_config(**explicit(mode=mode, no_edge_types=no_edge_types, k=k, l_max=l_max),
                        offline=True, log=False)
    pipeline = Pipeline(store, config)
    node_type = pipeline.schema.node_type(target_type)
    if target_type is not None and node_type is None:
        raise AfrError(f"--target-type {target_type}: not a node type of this SKB (see "
                       "'afr info')")
    steps = pipeline.ground_cypher(cypher_text, target_type=node_type)
    for d in steps.resolved.dropped:
        click.echo(f"note: {d}", err=True)
    gquery = steps.query
    if gquery is None:
        raise AfrError("nothing constrains the target: no grounding to do")
    if show_sql:
        compiled = compile_grounding(gquery, schema_directed=edge_directions(store),
                                     sql=store.sql, k=config.k, l_max=config.l_max)
        for stmt in compiled.statements:
            click.echo(stmt.rstrip() + ";")
        if as_json:
            click.echo(json.dumps(compiled.params, default=str))
    if run_it:
        res = steps.result
        assert res is not None
        ids = [n for n, _ in res.answers]
        details = store.node_details(ids)
        rows = [(i, details[n].name or details[n].ext_id, details[n].type, lvl,
                 details[n].ext_id) for i, (n, lvl) in enumerate(res.answers[:top], 1)]
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
