"""`afr ask --explain`: every step of one ask, read from its typed traces (AF's
formalization, repair round and grounding; SAGE's expansion; KAR's steps)."""

from __future__ import annotations

import json

import click

from .carets import with_places
from .sqltext import CYCLIC_NOTE, echo_statements, inlined


def explain(result, store) -> None:
    click.echo(f"target type:  {result.target_type or 'unknown'}")
    if result.mode == "llm":
        _expected_calls(result, store)
    if result.kar is not None:
        _kar(result.kar)
    elif result.af is not None:
        _af(result, store)
        if result.sage is not None:
            _sage(result)
    elif result.sage is not None:
        _sage(result)
    _footer(result)


def _af(result, store) -> None:
    click.echo(f"outcome:      {result.outcome or 'unknown'}")
    repair = result.repair
    if repair is not None:
        click.echo("cypher as written:" if repair.used else "cypher:")
        for line in (repair.original or "").splitlines():
            click.echo(f"  {line}")
        click.echo("repair round: " + "; ".join(repair.problems))
        click.echo(f"  {repair.note}")
    click.echo("cypher used:" if repair and repair.used else "cypher:")
    if not (repair and not repair.used):
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
    _symbols(result.symbols)
    _grounding(result.grounding, store)


def _symbols(symbols) -> None:
    if not symbols:
        return
    click.echo("symbols:")
    for var, s in symbols.items():
        if s.constant:
            lead = "all at level 1: a name filter" if s.pattern else \
                f"{s.exact} exact name matches"
            click.echo(f"  {var}: search {s.search!r} → {len(s.ids)} candidates ({lead})")
        elif s.allowed is not None:
            click.echo(f"  {var}: {len(s.allowed)} nodes pass its filters")
        for text in s.notes:
            click.echo(f"    note: {text}")


def _grounding(g, store) -> None:
    if g is None:
        return
    click.echo(f"grounding: {len(g.answers)} answers, stopped at level "
               f"{g.final_level} of {g.levels}")
    if g.cyclic:
        click.echo(f"  ({CYCLIC_NOTE})")
    click.echo("  SQL (values inlined; re-run it with afr sql):")
    echo_statements(inlined(store, g.sql, g.params), indent="    ")


def _expected_calls(result, store) -> None:
    """What the question costs in LLM calls, step by step, before it is asked again (the
    default pairwise reranker alone makes dozens)."""
    from afr.pipeline import describe_calls, llm_calls

    parts = llm_calls(result.settings,
                      candidate_types=len(store.skb_schema().candidate_types),
                      candidates=len(result.retrieved.candidates))
    click.echo(f"LLM calls:    {describe_calls(parts)} (expected; this ask: "
               f"{result.llm_calls}, {result.llm_calls - result.llm_new_calls} of them "
               "from the cache)")


def _footer(result) -> None:
    """What every --explain ends with, whatever the method: time per step and LLM use."""
    click.echo("timings: " + ", ".join(f"{k} {v * 1000:.1f} ms"
                                       for k, v in result.timings.items()))
    ranking = result.settings.ranking
    click.echo(f"fusion: dense {ranking.dense:g} ({result.dense_from}), lexical "
               f"{ranking.lexical:g}, graph {ranking.graph:g} ({ranking.fusion}); hybrid "
               f"list: dense {ranking.hybrid_dense:g} ({result.hybrid_dense_from}), lexical "
               f"{ranking.lexical:g} (linear)")
    _ranked_by(result)
    click.echo(f"LLM: {result.llm_calls} calls, {result.llm_tokens} tokens, "
               f"{result.rerank_prompts} rerank prompts")
    for f in result.fallbacks:
        click.echo(f"  fell back in {f.step} ({f.kind}): {f.instead}")
    click.echo("")


def _ranked_by(result) -> None:
    """What AF's step 6 ranked the grounded answers by, when not the whole question (after
    the grounding's SQL block, which stays a block to copy)."""
    af = result.af
    if af is None or af.ranking != "hybrid" or not result.grounding:
        return
    residual = af.rank_input.residual
    if residual is not None:
        click.echo("  step 6 ranked the grounded answers by the question without its "
                   f"constants' names: {' '.join(residual[0].split())!r}")


def _sage(result) -> None:
    """SAGE's expansion: seeds, neighbours found and kept, and each neighbour's link."""
    sage = result.sage
    settings = sage.settings
    click.echo(f"sage: {sage.seeds} seeds (k_seed {settings['k_seed']}), policy "
               f"{settings['policy']}, neighbours "
               f"{'of the target type' if settings['same_type'] else 'of any type'}")
    if sage.skipped:
        click.echo(f"  no expansion: {sage.skipped}")
        return
    click.echo(f"  {sage.neighbours} neighbours in node_sim, {sage.kept} kept "
               f"(pruned by {settings['bm25']:g}·BM25 + {settings['dense']:g}·dense, "
               f"min-max normalised)" + (f"; {sage.filled} slots filled from the seed "
                                         "list" if sage.filled else ""))
    names = {a.node_id: a.name or a.ext_id for a in result.answers}
    for a in result.answers:
        link = a.provenance.get("sage") or {}
        if link.get("role") != "neighbour":
            continue
        scores = a.provenance.get("scores") or {}
        click.echo(f"  #{a.rank} {a.name or a.ext_id}: similar to "
                   f"{names.get(link['via_seed'], link['via_seed'])} ({link['signal']} "
                   f"{link['sim']:.3f}), fused {scores.get('fused', 0.0):.3f}")


def _kar(kar) -> None:
    click.echo(f"method:       kar ({kar.mode}; expansion: {kar.expansion_source})")
    click.echo("entities:")
    for e in kar.entities:
        found = "nothing" if e.node_id is None else f"node {e.node_id} ({e.score:.3f})"
        click.echo(f"  {e.entity} [{e.source}] {e.text[:80]!r} → {found}")
        if kar.expansion_source != "llm" and e.why:
            click.echo(f"      trust {e.trust:.2f}: {e.why}")
    click.echo(f"neighbours reached: {kar.neighbours}; triples kept:")
    for t in kar.triples:
        click.echo(f"  {t.entity}.{t.rank} ({t.score:.3f}) {t.rendered}")
    if kar.expansion_note:
        click.echo(f"expansion: {kar.expansion_note}")
    click.echo("expanded query:")
    for line in kar.expanded_query.splitlines():
        click.echo(f"  {line}")
