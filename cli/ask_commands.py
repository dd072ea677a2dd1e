"""Commands that answer questions: ask (the full pipeline) and cypher (steps 3–5)."""

from __future__ import annotations

import dataclasses
import math
import sys

import click

from afr.cypher import locate as locate_fix
from afr.cypher import locate_text
from afr.errors import AfrError

from .carets import where, with_places
from .context import Context, aside, handle_errors, note, pass_ctx, warn
from .exit_codes import llm_exit_code
from .explain import explain as explain_result
from .options import settings_options, top_option
from .output import format_table, json_text, plural
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
COSINE_NOTE = "cosine: the question's cosine similarity to the answer (one signal, not the order)"


def order_note(result) -> str:
    """What the # column's order comes from: the LLM's rerank, else the method's ranking."""
    if result.reranked:
        return "#: the order of the LLM's rerank (step 8)"
    method = result.method
    if method in ("af", "af+sage"):
        return f"#: the order of the {result.settings.af.ranking} ranking (steps 6–7)"
    return f"#: the order of the {method} ranking"


def legend(sources: list[str], result) -> str:
    shown = [s for s in STRANDS if s in sources]
    parts = [order_note(result)]
    parts += ["strand: " + ", ".join(f"{s} = {STRANDS[s]}" for s in shown)] if shown else []
    if "graph" in sources or "both" in sources:
        parts.append(LEVEL_NOTE)
    return " · ".join([*parts, COSINE_NOTE])


# Between the answers linked to exact name matches and those from expanded scope.
EXACT_SEPARATOR = "    ·· above: linked to exact name matches · below: expanded scope or " \
                  "vector search ··"

@click.command()
@click.argument("question")
@settings_options()
@top_option("Answers to print (table view).")
@click.option("--explain", is_flag=True,
              help="Also show target type, Cypher, query graph, dropped parts, symbol "
                   "candidates, the SQL that ran (values inlined), timings and LLM tokens.")
@click.option("--json", "as_json", is_flag=True, help="Everything as JSON.")
@pass_ctx
@handle_errors
def ask(ctx: Context, question: str, settings, top: int, explain: bool, as_json: bool) -> None:
    """Answer QUESTION with the Autofocus-Retriever and print the ranked answers
    (QUESTION `-`: read it from stdin).

    With an LLM configured (AFR_LLM_BASE_URL / AFR_LLM_MODEL / AFR_LLM_API_KEY, any
    OpenAI-compatible server), all eight steps run. Without one, afr runs in offline
    mode: the answer type and the Cypher come from entity linking against the store,
    and there is no reranking.

    Every run is logged to the tables runs, run_symbols and run_answers (see the
    README for queries); `--explain` shows what each step did.

    A failing LLM never loses the question: steps 1–2 fall back to the offline
    formalizer and the answers keep the retrieval order, with a note. A reply that
    arrives but cannot be used (no query in it, no known type, no candidate named)
    counts as a failure too. A question waits
    at most 2 × timeout_s + 1 s on failing LLM calls; an endpoint that refuses the
    connection (or whose host is unknown) gets one quick retry and is then not asked
    again.

    \b
    Exit codes:
      0  all steps ran as configured (or offline, as no LLM is configured)
      1  error: nothing answered
      3  answers printed, but the configured LLM failed, or answered something
         unusable (no query, no known type, no candidate named), and afr fell back
      4  answers printed, but the LLM refused access or has no such model
         (HTTP 401/403/404: check the key, the URL, the model name)

    \b
    Examples:
      afr ask "Which exceptions in the json module inherit from ValueError?"
      afr ask "…" --explain
      AFR_LLM_BASE_URL=http://localhost:11434/v1 AFR_LLM_MODEL=qwen3 afr ask "…" --reranker listwise
    """
    from afr.pipeline import Pipeline

    question = read_question(question)
    store = ctx.open(logs=True)
    result = Pipeline(store, settings).ask(question)
    if as_json:
        _print_json(ctx, store, result)
    else:
        _print_answers(ctx, store, result, top=top, explain=explain)
    _exit_for_llm(store, result, with_reason=as_json)


def _print_json(ctx: Context, store, result) -> None:
    from afr.pipeline import assess

    data = result.to_dict()
    # Every note the text output prints, in its order (the LLM's fallbacks are typed, in
    # "fallbacks", not notes).
    fell_back = {f.note for f in result.fallbacks}
    data["notes"] = [*data["notes"], *(w for w in result.warnings if w not in fell_back),
                     *assess(result).notes]
    del data["warnings"]  # in notes now
    data["logged"] = result.logged  # false: run_id names no row of the run log
    data["store"] = store.location
    data["demo_store"] = ctx.is_demo
    if result.grounding is not None:
        data["grounding"].update(grounding_json(
            store, result.grounding.sql, result.grounding.params,
            cyclic=result.grounding.cyclic))
    click.echo(json_text(data))


def _print_answers(ctx: Context, store, result, *, top: int, explain: bool) -> None:
    from afr.pipeline import assess

    if result.mode == "offline" and result.settings.llm.incomplete:
        pass  # the warnings below say what is missing
    elif result.mode == "offline" and result.kar is not None:
        note("offline mode (no LLM configured): KAR with entity linking and the graph-PRF "
             "expansion, no reranking")
    elif result.mode == "offline":
        note("offline mode (no LLM configured): entity linking + schema paths, no reranking")
    for warning in result.warnings:
        note(warning)
    if explain:
        explain_result(result, store)
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
    lines = format_table(["#", "answer", "type", "strand", "level", "cosine", "id"],
                         rows).splitlines()
    exact = [i for i, a in enumerate(shown) if confidence.rests_on_exact_names(a)]
    if exact and exact[-1] < len(shown) - 1:
        lines.insert(2 + exact[-1] + 1, EXACT_SEPARATOR)
    click.echo("\n".join(lines))
    if shown:
        click.echo(legend([a.source for a in shown], result))
    total = sum(result.timings.values())
    # A run that was not logged has no id anyone can look up: none is printed.
    run = f"run {result.run_id}" if result.logged else "run not logged"
    aside(f"\n{plural(len(result.answers), 'answer')} · target type "
          f"{result.target_type or '?'} · {total:.2f} s · {run}")
    aside(f"store: {ctx.store_label(store)}")


def _exit_for_llm(store, result, *, with_reason: bool = False) -> None:
    """Say which steps the failing LLM did not do, and exit 3 (4: access refused);
    ``with_reason`` when the notes with the LLM's error were not printed (--json)."""
    code = llm_exit_code(result.llm_failure)
    if not code:
        return
    missed = [f"{f.step}: {f.instead}" for f in result.fallbacks]
    reason = result.llm_error if with_reason else result.llm_failure
    warn(f"the LLM failed ({reason}): {'; '.join(missed) or 'see the notes'}; "
         f"exit code {code}")
    store.close()
    sys.exit(code)


@click.command()
@click.argument("cypher_text", metavar="CYPHER")
@click.option("--json", "as_json", is_flag=True, help="Print the parsed query graph as JSON "
              "(with --sql: the SQL, with values inlined and with $name placeholders, and "
              "the parameters, for afr sql --param; with --run: the answers).")
@click.option("--sql", "show_sql", is_flag=True,
              help="Print the grounding SQL with its values inlined (re-run it with afr sql).")
@click.option("--run", "run_it", is_flag=True, help="Run steps 4–5 and list the grounded answers.")
@click.option("--fix", "fix_it", is_flag=True,
              help="Print the Cypher as afr fixes it (labels, relations, directions, "
                   "properties, RETURN); the fixes are listed on stderr.")
@settings_options(("af.mode", "af.use_edge_types", "ask.k", "af.l_max",
                   "af.relax", "vectors.exact_search"), steps=False,
                  helps={"ask.k": "Answers wanted: scope expansion stops once grounding "
                                  "has this many."})
@click.option("--target-type", metavar="TYPE",
              help="The answer type, as step 1 of `afr ask` predicts it: in strict mode it "
                   "types a target the Cypher leaves without a known label.")
@click.option("--question", metavar="TEXT",
              help="The question the Cypher was written for: the relations it names are "
                   "added beside those the Cypher chose, as `afr ask` adds them.")
@top_option("Answers to print (with --run).")
@pass_ctx
@handle_errors
def cypher(ctx: Context, cypher_text: str, as_json: bool, show_sql: bool, run_it: bool,
           fix_it: bool, settings, target_type: str | None, question: str | None,
           top: int) -> None:
    """Parse a Cypher query (no LLM) and show what afr makes of it (CYPHER `-`: read it
    from stdin).

    The deterministic fixes `afr ask` applies (labels and relations matched to the
    schema, "did you mean", reversed relations, unknown properties, a missing RETURN)
    are listed on stderr, each under the place it concerns; with --question, also the
    relations the question names beside those the Cypher chose.
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
    from afr.cypher import render_cypher
    from afr.pipeline import explain_cypher

    parsed = _parse_or_explain(cypher_text, as_json=as_json and not (show_sql or run_it
                                                                      or fix_it))
    if parsed is None:
        return
    text, graph = parsed
    store = ctx.open(writes_nothing=True)  # offline and unlogged
    report = explain_cypher(store, settings, text, graph, target_type=target_type,
                            ground=run_it or show_sql, sql=show_sql, question=question)
    # the grounding's own fixes too (a relationship turned round by the data)
    _print_fixes(text, report.grounded.fixes if report.grounded else report.fixed.fixes)
    if fix_it:
        click.echo(render_cypher(report.fixed.graph))
    if report.grounded is None:
        data = report.fixed.graph.to_dict()
        if as_json:
            data["fixes"] = [dataclasses.asdict(f) for f in report.fixed.fixes]
            click.echo(json_text(data))
        elif not fix_it:
            _print_graph(data, text)
        return
    _print_grounding_notes(report, graph, text)
    if as_json:
        _print_grounding_json(store, report, run=run_it, top=top)
        return
    if report.compiled is not None:
        _print_sql(store, report.compiled, report.grounded.result)
    if run_it:
        _print_grounded(store, report.grounded, top)


def _parse_or_explain(cypher_text: str, *, as_json: bool):
    """(the query's text, its graph); with nothing usable in it, the parse as JSON
    (``as_json``: None) or a one-line error naming what was dropped."""
    from afr.cypher import parse_cypher
    from afr.text import clean_text

    text = clean_text(read_question(cypher_text))
    graph = parse_cypher(text)
    if graph.symbols:
        return text, graph
    if as_json:
        click.echo(json_text({**graph.to_dict(), "fixes": []}))
        return None
    reasons = "; ".join(d.reason + where(d.text, text) for d in graph.dropped)
    _echo_carets(graph.dropped, text)
    raise AfrError(f"nothing usable in that Cypher: {reasons or 'no MATCH pattern found'}")


def _print_grounding_json(store, report, *, run: bool, top: int) -> None:
    """--sql and/or --run as one JSON object: the SQL and what it covers, the answers."""
    data: dict = {"fixes": [dataclasses.asdict(f) for f in report.grounded.fixes]}
    res = report.grounded.result
    if report.compiled is not None:
        compiled = report.compiled
        data.update(grounding_json(store, compiled.statements, compiled.params,
                                   cyclic=compiled.cyclic))
        data["covers"] = sql_coverage(res)
    if run:
        details = store.node_details([n for n, _ in res.answers])
        data["answers"] = [
            {"rank": i, "node_id": n, "ext_id": details[n].ext_id, "name": details[n].name,
             "type": details[n].type, "level": lvl}
            for i, (n, lvl) in enumerate(res.answers[:top], 1)]
        data.update({"total": len(res.answers), "final_level": res.final_level,
                     "levels": list(res.levels), "seconds": res.seconds})
        # null, or why these answers meet a part of the query only (af.relax)
        relaxed = report.grounded.relaxed
        data["relaxed"] = relaxed.note if relaxed is not None else None
    click.echo(json_text(data))


def sql_coverage(res) -> str:
    """What the grounding SQL returns, beside what the grounding kept: the SQL lists every
    scope level's answers; the grounding stops at the first level with k of them."""
    top = max(res.levels) if res.levels else None
    if res.final_level is None or res.final_level == top:
        return (f"the SQL returns the answers of every scope level (column lvl, up to {top}),"
                " as the grounding does here")
    return (f"the SQL returns the answers of every scope level (column lvl, up to {top}); "
            f"the grounding stops at level {res.final_level}, the first with enough "
            f"answers: its answers are the rows with lvl <= {res.final_level}")


def _print_sql(store, compiled, res) -> None:
    if compiled.cyclic:
        note(CYCLIC_NOTE)
    else:
        note(sql_coverage(res))
    echo_statements(inlined(store, compiled.statements, compiled.params))


def _print_grounding_notes(report, graph, text: str) -> None:
    grounded = report.grounded
    for line in with_places(grounded.resolved.dropped, graph.dropped, text):
        note(line)
    for line in grounded.resolved.notes:
        note(line)
    for var, cands in grounded.symbols.items():
        for line in cands.notes:
            note(f"{var}: {line}")
    if grounded.relaxed is not None:
        note(grounded.relaxed.note)
    _echo_carets(graph.dropped, text)
    if grounded.query is None:
        raise AfrError("nothing constrains the target: no grounding to do")


def _print_grounded(store, grounded, top: int) -> None:
    res = grounded.result
    assert res is not None
    ids = [n for n, _ in res.answers]
    details = store.node_details(ids)
    rows = [(i, details[n].name or details[n].ext_id, details[n].type, lvl,
             details[n].ext_id) for i, (n, lvl) in enumerate(res.answers[:top], 1)]
    click.echo(format_table(["#", "answer", "type", "level", "id"], rows))
    level = (f"final level {res.final_level}" if res.final_level is not None
             else f"no answer at any of {plural(len(res.levels), 'level')}")
    aside(f"\n{plural(len(res.answers), 'answer')}, {level}, {res.seconds * 1000:.1f} ms")


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
        edges = "|".join([t["edge"] or "", *t.get("alternatives", ())])
        click.echo(f"  ({t['head']})-[:{edges}{hops}]{arrow}({t['tail']})")
    for d in data["dropped"]:
        click.echo(f"  dropped{where(d['text'], query)}: {d['text']!r} — {d['reason']}")
        pos = locate_text(d["text"], query)
        if pos is not None:
            for line in pos.caret_lines(query, indent="    "):
                click.echo(line)


COMMANDS = [ask, cypher]
