"""Commands that answer questions: ask (the full pipeline) and cypher (steps 3–5)."""

from __future__ import annotations

import dataclasses
import json
import math
import sys

import click

from afr.cypher.hints import locate as locate_fix
from afr.cypher.hints import locate_text
from afr.errors import AfrError

from .carets import where, with_places
from .context import Context, handle_errors, note, pass_ctx, warn
from .exit_codes import llm_exit_code
from .options import (
    ask_config,
    ask_options,
    explicit,
    k_option,
    l_max_option,
    mode_option,
    no_edge_types_option,
    top_option,
)
from .output import format_table, json_text
from .sqltext import CYCLIC_NOTE, echo_statements, grounding_json, inlined


def read_question(question: str) -> str:
    """QUESTION, or the text on stdin when it is ``-``."""
    if question != "-":
        return question
    text = sys.stdin.read().strip()
    if not text:
        raise AfrError("no question on stdin")
    return text

# Under the answers table: what its columns mean, for the strands that appear in it.
STRANDS = {
    "graph": "found by grounding the query graph", "vss": "by vector search",
    "bm25": "by BM25", "both": "by grounding and vector search",
    "hybrid": "by vector search and BM25 fused", "kar": "by KAR's expanded question",
    "sage_seed": "a seed of SAGE's expansion",
    "sage_neighbour": "similar to a seed (similarity graph)",
    "sage_fill": "the seed list's next answer",
}
LEVEL_NOTE = ("level: scope level of the graph match (1 = the named entities' best matches; "
              "higher = wider, weaker)")
SCORE_NOTE = "score: the question's cosine similarity to the answer"


def legend(sources: list[str]) -> str:
    shown = [s for s in STRANDS if s in sources]
    parts = ["strand: " + ", ".join(f"{s} = {STRANDS[s]}" for s in shown)] if shown else []
    if "graph" in sources or "both" in sources:
        parts.append(LEVEL_NOTE)
    return " · ".join([*parts, SCORE_NOTE])


# Between the answers linked to exact name matches and those from expanded scope.
EXACT_SEPARATOR = "    ·· above: linked to exact name matches · below: expanded scope or " \
                  "vector search ··"

@click.command()
@click.argument("question")
@ask_options(concurrency_flag="--concurrency")
@top_option("Answers to print (table view).")
@click.option("--explain", is_flag=True,
              help="Also show target type, Cypher, query graph, dropped parts, symbol "
                   "candidates, the SQL that ran (values inlined), timings and LLM tokens.")
@click.option("--json", "as_json", is_flag=True, help="Everything as JSON.")
@pass_ctx
@handle_errors
def ask(ctx: Context, question: str, config, top: int, explain: bool, as_json: bool) -> None:
    """Answer QUESTION with the Autofocus-Retriever and print the ranked answers
    (QUESTION `-`: read it from stdin).

    With an LLM configured (AFR_LLM_BASE_URL / AFR_LLM_MODEL / AFR_LLM_API_KEY, any
    OpenAI-compatible server), all eight steps run. Without one, afr runs in offline
    mode: the answer type and the Cypher come from entity linking against the store,
    and there is no reranking.

    Every run is logged to the tables runs, run_symbols and run_answers (see the
    README for queries); `--explain` shows what each step did.

    A failing LLM never loses the question: steps 1–2 fall back to the offline
    formalizer and the answers keep the retrieval order, with a note. A question waits
    at most 2 × timeout_s + 1 s on failing LLM calls; an endpoint that refuses the
    connection (or whose host is unknown) gets one quick retry and is then not asked
    again.

    \b
    Exit codes:
      0  all steps ran as configured (or offline, as no LLM is configured)
      1  error: nothing answered
      3  answers printed, but the configured LLM failed and afr fell back
      4  answers printed, but the LLM refused access or has no such model
         (HTTP 401/403/404: check the key, the URL, the model name)

    \b
    Examples:
      afr ask "Which exceptions in the json module inherit from ValueError?"
      afr ask "…" --explain
      AFR_LLM_BASE_URL=http://localhost:11434/v1 AFR_LLM_MODEL=qwen3 afr ask "…" --reranker listwise
    """
    from afr.pipeline.ask import Pipeline
    from afr.pipeline.confidence import assess

    question = read_question(question)
    store = ctx.open()
    result = Pipeline(store, config).ask(question)
    if as_json:
        data = result.to_dict()
        data["store"] = store.location
        data["demo_store"] = ctx.is_demo
        if result.grounding is not None:
            data["grounding"].update(grounding_json(
                store, result.grounding.sql, result.grounding.params,
                cyclic=result.grounding.cyclic))
        click.echo(json_text(data))
        _exit_for_llm(store, result, with_reason=True)
        return
    if result.mode == "offline" and result.kar is not None:
        note("offline mode (no LLM configured): KAR with entity linking and the graph-PRF "
             "expansion, no reranking")
    elif result.mode == "offline":
        note("offline mode (no LLM configured): entity linking + schema paths, no reranking")
    for warning in result.warnings:
        note(warning)
    if explain:
        _explain(result, store)
    confidence = assess(result)
    for text in confidence.notes:
        note(text)
    shown = result.answers[:top]
    rows = [
        (a.rank, a.name or a.ext_id, a.type, a.source,
         "" if a.level is None else a.level,
         "" if a.vss_score is None or not math.isfinite(a.vss_score)
         else round(a.vss_score, 3), a.ext_id)
        for a in shown
    ]
    lines = format_table(["#", "answer", "type", "strand", "level", "score", "id"],
                         rows).splitlines()
    exact = [i for i, a in enumerate(shown) if confidence.rests_on_exact_names(a)]
    if exact and exact[-1] < len(shown) - 1:
        lines.insert(2 + exact[-1] + 1, EXACT_SEPARATOR)
    click.echo("\n".join(lines))
    if shown:
        click.echo(legend([a.source for a in shown]))
    total = sum(result.timings.values())
    click.echo(f"\n{len(result.answers)} answers · target type {result.target_type or '?'} · "
               f"{total:.2f} s · run {result.run_id}" + ("" if config.log else " (not logged)"),
               err=True)
    click.echo(f"store: {ctx.store_label(store)}", err=True)
    _exit_for_llm(store, result)


def _exit_for_llm(store, result, *, with_reason: bool = False) -> None:
    """Say which steps the failing LLM did not do, and exit 3 (4: access refused);
    ``with_reason`` when the notes with the LLM's error were not printed (--json)."""
    code = llm_exit_code(result.llm_failure)
    if not code:
        return
    missed = []
    if "1-2_llm_failed" in result.timings:
        missed.append("steps 1–2 came from the offline formalizer")
    if "kar_1_llm_failed" in result.timings:
        missed.append("KAR's entities came from offline entity linking")
    if "kar_6_llm_failed" in result.timings or (
            "kar_1_llm_failed" in result.timings and "kar_6_expand" not in result.timings):
        missed.append("KAR's expansion is the graph-PRF one")
    if "8_llm_failed" in result.timings:
        missed.append("the answers are not reranked")
    reason = result.llm_error if with_reason else result.llm_failure
    warn(f"the LLM failed ({reason}): {' and '.join(missed) or 'see the notes'}; "
         f"exit code {code}")
    store.close()
    sys.exit(code)


def _explain(result, store) -> None:
    click.echo(f"target type:  {result.target_type or 'unknown'}")
    if result.kar is not None:
        _explain_kar(result)
        return
    click.echo(f"outcome:      {result.outcome or 'unknown'}")
    if result.repair is not None:
        click.echo("cypher as written:" if result.repair["used"] else "cypher:")
        for line in (result.repair["original"] or "").splitlines():
            click.echo(f"  {line}")
        click.echo("repair round: " + "; ".join(result.repair["problems"]))
        click.echo(f"  {result.repair['note']}")
    click.echo("cypher used:" if result.repair and result.repair["used"] else "cypher:")
    if not (result.repair and not result.repair["used"]):
        for line in (result.cypher or "").splitlines():
            click.echo(f"  {line}")
    if result.fixes:
        click.echo("fixes:")
        for f in result.fixes:
            change = f"{f.before} → {f.after}" if f.after is not None else f"{f.before} dropped"
            click.echo(f"  - {f.kind} {f.where}: {change}" + (f" ({f.note})" if f.note else ""))
    click.echo("query graph:")
    click.echo("  " + json.dumps({k: v for k, v in result.query_graph.items() if k != "dropped"},
                                 ensure_ascii=False))
    if result.resolved and result.resolved.dropped:
        click.echo("dropped:")
        for text in with_places(result.resolved.dropped,
                                result.query_graph.get("dropped", []), result.cypher or ""):
            click.echo(f"  - {text}")
    if result.resolved and result.resolved.notes:
        click.echo("read differently:")
        for text in result.resolved.notes:
            click.echo(f"  - {text}")
    if result.symbols:
        click.echo("symbols:")
        for var, s in result.symbols.items():
            if s.constant:
                lead = "all at level 1: a name filter" if s.pattern else \
                    f"{s.exact} exact name matches"
                click.echo(f"  {var}: search {s.search!r} → {len(s.ids)} candidates ({lead})")
            elif s.allowed is not None:
                click.echo(f"  {var}: {len(s.allowed)} nodes pass its filters")
            for text in s.notes:
                click.echo(f"    note: {text}")
    if result.grounding is not None:
        g = result.grounding
        click.echo(f"grounding: {len(g.answers)} answers, stopped at level "
                   f"{g.final_level} of {g.levels}")
        if g.cyclic:
            click.echo(f"  ({CYCLIC_NOTE})")
        click.echo("  SQL (values inlined; re-run it with afr sql):")
        echo_statements(inlined(store, g.sql, g.params), indent="    ")
    if result.sage is not None:
        _explain_sage(result)
    _explain_footer(result)


def _explain_footer(result) -> None:
    """What every --explain ends with, whatever the method: time per step and LLM use."""
    click.echo("timings: " + ", ".join(f"{k} {v * 1000:.1f} ms"
                                       for k, v in result.timings.items()))
    click.echo(f"LLM: {result.llm_calls} calls, {result.llm_tokens} tokens, "
               f"{result.rerank_prompts} rerank prompts")
    click.echo("")


def _explain_sage(result) -> None:
    """SAGE's expansion: seeds, neighbours found and kept, and each neighbour's link."""
    sage = result.sage
    settings = sage["settings"]
    click.echo(f"sage: {sage['seeds']} seeds (k_seed {settings['k_seed']}), policy "
               f"{settings['policy']}, neighbours "
               f"{'of the target type' if settings['same_type'] else 'of any type'}")
    if sage["skipped"]:
        click.echo(f"  no expansion: {sage['skipped']}")
        return
    click.echo(f"  {sage['neighbours']} neighbours in node_sim, {sage['kept']} kept "
               f"(pruned by {settings['bm25']:g}·BM25 + {settings['dense']:g}·dense, "
               f"min-max normalised)" + (f"; {sage['filled']} slots filled from the seed "
                                         "list" if sage["filled"] else ""))
    names = {a.node_id: a.name or a.ext_id for a in result.answers}
    for a in result.answers:
        link = a.provenance.get("sage") or {}
        if link.get("role") != "neighbour":
            continue
        scores = a.provenance.get("scores") or {}
        click.echo(f"  #{a.rank} {a.name or a.ext_id}: similar to "
                   f"{names.get(link['via_seed'], link['via_seed'])} ({link['signal']} "
                   f"{link['sim']:.3f}), fused {scores.get('fused', 0.0):.3f}")


def _explain_kar(result) -> None:
    kar = result.kar
    click.echo(f"method:       kar ({kar['mode']}; expansion: {kar['expansion_source']})")
    click.echo("entities:")
    for e in kar["entities"]:
        found = "nothing" if e["node_id"] is None else \
            f"node {e['node_id']} ({e['score']:.3f})"
        click.echo(f"  {e['entity']} [{e['source']}] {e['text'][:80]!r} → {found}")
    click.echo(f"neighbours reached: {kar['neighbours']}; triples kept:")
    for t in kar["triples"]:
        click.echo(f"  {t['entity']}.{t['rank']} ({t['score']:.3f}) {t['rendered']}")
    click.echo("expanded query:")
    for line in kar["expanded_query"].splitlines():
        click.echo(f"  {line}")
    _explain_footer(result)


@click.command()
@click.argument("cypher_text", metavar="CYPHER")
@click.option("--json", "as_json", is_flag=True, help="Print the parsed query graph as JSON "
              "(with --sql: the SQL, with values inlined and with $name placeholders, and "
              "the parameters, for afr sql --param).")
@click.option("--sql", "show_sql", is_flag=True,
              help="Print the grounding SQL with its values inlined (re-run it with afr sql).")
@click.option("--run", "run_it", is_flag=True, help="Run steps 4–5 and list the grounded answers.")
@click.option("--fix", "fix_it", is_flag=True,
              help="Print the Cypher as afr fixes it (labels, relations, directions, "
                   "properties, RETURN); the fixes are listed on stderr.")
@mode_option
@no_edge_types_option
@click.option("--target-type", metavar="TYPE",
              help="The answer type, as step 1 of `afr ask` predicts it: in strict mode it "
                   "types a target the Cypher leaves without a known label.")
@k_option(help="Answers wanted: scope expansion stops once grounding has this many.")
@l_max_option
@top_option("Answers to print (with --run).")
@pass_ctx
@handle_errors
def cypher(ctx: Context, cypher_text: str, as_json: bool, show_sql: bool, run_it: bool,
           fix_it: bool, mode: str, no_edge_types: bool, target_type: str | None, k: int, l_max: int,
           top: int) -> None:
    """Parse a Cypher query (no LLM) and show what afr makes of it (CYPHER `-`: read it
    from stdin).

    The deterministic fixes `afr ask` applies (labels and relations matched to the
    schema, "did you mean", reversed relations, unknown properties, a missing RETURN)
    are listed on stderr, each under the place it concerns.
    Without options: the (fixed) query graph in short. --json: the full query graph
    with its fixes. --fix: the fixed Cypher.
    --sql: the SQL that grounds it. --run: run symbol retrieval and grounding and
    list the answers with their scope levels — the same steps 3–5, with the same
    switches, as `afr ask`.

    \b
    Examples:
      afr cypher "MATCH (e:exception)-[:exception_inherits_from_exception]->(b:exception {name: 'ValueError'}) RETURN e" --run
      afr cypher "MATCH (c:class)-[:class_inherits_from_class]->(b:class {name: 'HTTPServer'}) RETURN c" --sql
    """
    from afr.cypher import parse_cypher
    from afr.cypher.render import render_cypher
    from afr.pipeline.ask import Pipeline
    from afr.pipeline.grounding import fix_cypher
    from afr.text import clean_text

    cypher_text = clean_text(read_question(cypher_text))
    graph = parse_cypher(cypher_text)
    if not graph.symbols and as_json and not (show_sql or run_it or fix_it):
        click.echo(json_text({**graph.to_dict(), "fixes": []}))
        return
    if not graph.symbols:
        reasons = "; ".join(d.reason + where(d.text, cypher_text) for d in graph.dropped)
        _echo_carets(graph.dropped, cypher_text)
        raise AfrError(f"nothing usable in that Cypher: {reasons or 'no MATCH pattern found'}")
    store = ctx.open()
    # The same steps 3–5 as `afr ask`, with the same settings, offline and unlogged.
    config = ask_config(**explicit(mode=mode, no_edge_types=no_edge_types, k=k, l_max=l_max),
                        offline=True, log=False)
    pipeline = Pipeline(store, config)
    node_type = pipeline.schema.node_type(target_type)
    if target_type is not None and node_type is None:
        raise AfrError(f"--target-type {target_type}: not a node type of this SKB (see "
                       "'afr info')")
    fixed = fix_cypher(graph, pipeline.schema, pipeline.catalog, target_type=node_type)
    _print_fixes(cypher_text, fixed.fixes)
    if fix_it:
        click.echo(render_cypher(fixed.graph))
    if not (show_sql or run_it):
        data = fixed.graph.to_dict()
        if as_json:
            data["fixes"] = [dataclasses.asdict(f) for f in fixed.fixes]
            click.echo(json_text(data))
        elif not fix_it:
            _print_graph(data, cypher_text)
        return
    from afr.ground import compile_grounding, edge_directions, edge_endpoints

    steps = pipeline.ground_cypher(cypher_text, target_type=node_type)
    for text in with_places(steps.resolved.dropped, graph.dropped, cypher_text):
        note(text)
    for text in steps.resolved.notes:
        note(text)
    for var, cands in steps.symbols.items():
        for text in cands.notes:
            note(f"{var}: {text}")
    _echo_carets(graph.dropped, cypher_text)
    gquery = steps.query
    if gquery is None:
        raise AfrError("nothing constrains the target: no grounding to do")
    if show_sql:
        compiled = compile_grounding(gquery, schema_directed=edge_directions(store),
                                     sql=store.sql, k=config.k, l_max=config.l_max,
                                     adjacency=store.has_edge_lists(),
                                     endpoints=edge_endpoints(store),
                                     presence=store.has_edge_presence())
        if as_json:
            click.echo(json_text(grounding_json(store, compiled.statements, compiled.params,
                                                cyclic=compiled.cyclic)))
        else:
            if compiled.cyclic:
                note(CYCLIC_NOTE)
            echo_statements(inlined(store, compiled.statements, compiled.params))
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


def _echo_carets(dropped, query: str) -> None:
    """Under each dropped part that can be found in the query: the line with carets."""
    for d in dropped:
        pos = locate_text(d.text, query)
        if pos is not None:
            for line in pos.caret_lines(query, indent="  "):
                click.echo(line, err=True)


def _print_fixes(text: str, fixes: list) -> None:
    """Each fix on stderr: what changed and why, and a caret under the word concerned."""
    for f in fixes:
        change = f"{f.before} → {f.after}" if f.after is not None else f"{f.before} dropped"
        click.echo(f"fix: {f.kind} {f.where}: {change}" + (f" ({f.note})" if f.note else ""),
                   err=True)
        hint = locate_fix(text, f)
        meant = f.after
        if meant is not None and f.kind.startswith("property"):
            meant = meant.split(" ", 1)[0].split(".", 1)[-1]  # "c.year > 2" → year
        if hint is not None:
            label = (f"did you mean {meant!r}?" if meant is not None
                     and f.kind.startswith(("node_label", "edge_label", "property")) else "")
            for line in hint.caret_lines(text, indent="  ", fill="^", label=label):
                click.echo(line, err=True)


def _print_graph(data: dict, query: str) -> None:
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
        click.echo(f"  dropped{where(d['text'], query)}: {d['text']!r} — {d['reason']}")
        pos = locate_text(d["text"], query)
        if pos is not None:
            for line in pos.caret_lines(query, indent="    "):
                click.echo(line)


COMMANDS = [ask, cypher]
