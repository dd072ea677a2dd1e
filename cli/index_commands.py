"""`afr index`: the lexical (BM25) index of the node documents, and (--similarity) the
similarity graph SAGE expands over."""

from __future__ import annotations

import click

from .context import Context, UsageProblem, handle_errors, pass_ctx
from .output import format_table


def build_index(ctx: Context, store, *, rebuild: bool = False) -> None:
    """Build (or top up, or with ``rebuild`` build anew) the lexical index and say what it
    holds: shared by `afr index` and the --index flag of load and embed."""
    from afr.lexical import build_lexical_index

    report = build_lexical_index(store, params=ctx.resolve().settings.bm25,
                                 rebuild=rebuild, progress=ctx.progress)
    anew = "emptied and built anew: " if report.rebuilt else ""
    click.echo(f"lexical index ({report.tokenizer}): {anew}{report.indexed:,} nodes indexed "
               f"now, {report.total:,} of {report.nodes:,} in all ({report.postings:,} "
               f"postings, {report.terms:,} terms) in {report.seconds:.1f} s")


def build_similarity(ctx: Context, store, *, k_cand: int | None, percentile: float | None,
                     types: tuple[str, ...]) -> None:
    """Build the similarity graph anew and say what it holds."""
    from afr.embed import embedder_for_store, embedding_endpoint
    from afr.vectors import KnnChoice, LshParams, build_similarity_graph

    settings = ctx.resolve().settings
    sage = settings.sage
    report = build_similarity_graph(
        store, embedder_for_store(store, embedding_endpoint(settings.embed, settings.llm)),
        k_cand=k_cand if k_cand is not None else sage.k_cand,
        percentile=percentile if percentile is not None else sage.percentile,
        types=list(types) or None, min_text_chars=sage.min_text_chars,
        knn=KnnChoice(sage.knn, LshParams(sage.lsh_tables, sage.lsh_bits,
                                          sage.lsh_bucket_max)),
        progress=ctx.progress)
    d = report.degree
    click.echo(f"similarity graph: {report.nodes:,} nodes of {len(report.types)} types "
               f"({', '.join(report.types)}), {report.pairs:,} similar pairs "
               f"({report.rows:,} rows in node_sim: both directions, per signal), "
               f"k_cand {report.k_cand} ({report.knn}), percentile {report.percentile:g}, in "
               f"{report.seconds:.1f} s")
    click.echo(f"edges per node: mean {d.mean:.1f}, median {d.median:g}, max {d.max:,}")
    for signal in dict.fromkeys(t.signal for t in report.thresholds):
        mine = [t for t in report.thresholds if t.signal == signal]
        low, high = min(t.threshold for t in mine), max(t.threshold for t in mine)
        click.echo(f"  {signal}: kept {sum(t.n_kept for t in mine):,} of "
                   f"{sum(t.n_cand for t in mine):,} candidate pairs, thresholds "
                   f"{low:.3f}–{high:.3f} over {len(mine)} type pairs")
    click.echo("  (each type pair's threshold: afr sql \"SELECT * FROM node_sim_meta\")")


@click.command()
@click.option("--rebuild", is_flag=True,
              help="Empty the lexical index and build it anew with the [bm25] tokeniser "
                   "(stemmer, stopwords): needed after changing either, and for an index "
                   "an older afr built. An interrupted rebuild continues with 'afr index'.")
@click.option("--similarity", is_flag=True,
              help="Also build the similarity graph SAGE expands over (node_sim), anew.")
@click.option("--k-cand", type=int, default=None, metavar="N",
              help="With --similarity: nearest neighbours per node and signal, the "
                   "candidate pairs [default: 50, or [sage] k_cand].")
@click.option("--percentile", type=float, default=None, metavar="P",
              help="With --similarity: keep the candidate pairs at or above this "
                   "percentile of their signal and type pair [default: 95, or [sage] "
                   "percentile].")
@click.option("--calibrate", "calibrate", metavar="QUESTIONS",
              help="Also measure how much vector similarity counts beside BM25 for the "
                   "store's embedder, on these questions (a question file or folder, as "
                   "afr eval takes; use a dev split, never the test questions), and keep "
                   "the weights for every later fusion.")
@click.option("--split", type=click.Choice(["train", "val", "test", "test-0.1", "human"]),
              help="With --calibrate: the split to calibrate on (split/NAME.index, as "
                   "STaRK and afr synth write them; use val).")
@click.option("--types", "types", multiple=True, metavar="TYPE",
              help="With --similarity: link nodes of these types (repeatable) [default: "
                   "the candidate types and the types whose median text has at least 200 "
                   "characters ([sage] min_text_chars)].")
@pass_ctx
@handle_errors
def index(ctx: Context, rebuild: bool, similarity: bool, k_cand: int | None,
          percentile: float | None, calibrate: str | None, split: str | None,
          types: tuple[str, ...]) -> None:
    """Build the lexical index BM25 ranks with — incremental and resumable.

    Tokenises every node's `doc` document (name, aliases, attributes, text: lowercase
    Unicode words, English stopwords dropped, Snowball stems: [bm25] stemmer and
    stopwords) into SQL tables (lex_postings, lex_docs, lex_df, lex_stats). Only nodes
    not yet indexed are tokenised, batch by batch, each batch committed; document
    frequencies are recomputed at the end. The index records its tokeniser, and queries
    are tokenised the same way: after changing it, rebuild with --rebuild. On a DuckDB
    file it also writes the postings beside the store (STORE.duckdb.vectors/
    lexical.afrlex), which BM25 then reads, memory-mapped, with the same scores; on
    Spark likewise beside the warehouse's tables, up to 10 million postings.

    With --similarity, also builds the similarity graph of `--method sage` / `af+sage`
    (node_sim, apart from the SKB's edges): nodes linked by the similarity of their
    `doc` vectors or of their names, nearest neighbours (exact; approximate by LSH
    with [sage] knn = "lsh") thresholded at a percentile. A rebuild replaces the old
    graph only when it is complete.

    With --calibrate QUESTIONS, also measures the weights of vector similarity beside
    BM25 — in the reciprocal rank fusions of steps 6–7 and in the hybrid list, fused
    linearly on min-max normalised scores — as the MRR of the two lists fused each way
    on the questions, for each weight of a grid, and keeps, of the weights within one
    standard error of the best, the one nearest the embedder's own, for the store's
    embedder: `afr ask --explain` shows the weights in force and where they came from.
    Without it the embedder's own weights hold: for the built-in hash embedder, whose
    similarity knows no meaning, a tie-breaker (0.002) by reciprocal rank and 0.3 in the
    hybrid list; for semantic ones 0.01 and 0.1, BM25 leading.
    """
    if not similarity and (k_cand is not None or percentile is not None or types):
        raise UsageProblem("--k-cand, --percentile and --types go with --similarity")
    if k_cand is not None and k_cand < 1:
        raise UsageProblem(f"--k-cand must be at least 1, not {k_cand}")
    if percentile is not None and not 0 <= percentile <= 100:
        raise UsageProblem(f"--percentile must lie between 0 and 100, not {percentile:g}")
    if split and not calibrate:
        raise UsageProblem("--split goes with --calibrate")
    store = ctx.open(write=True)
    try:
        build_index(ctx, store, rebuild=rebuild)
        if similarity:
            build_similarity(ctx, store, k_cand=k_cand, percentile=percentile, types=types)
        if calibrate:
            calibrate_fusion(ctx, store, calibrate, split)
    finally:
        store.close()


def calibrate_fusion(ctx: Context, store, source: str, split: str | None) -> None:
    """Measure and keep the dense weight, and show what each weight scored."""
    from afr.evaluate import calibrate_dense
    from afr.pipeline import open_session

    session = open_session(store, ctx.resolve().settings)
    done = calibrate_dense(session, source, split=split)
    rows = [(f"{w:g}", f"{100 * m:.1f}" + (" ← kept" if w == done.weight else ""),
             f"{100 * done.hybrid_mrr[w]:.1f}" + (" ← kept" if w == done.hybrid_weight else ""))
            for w, m in done.mrr.items()]
    click.echo(format_table(["dense weight", "MRR % (reciprocal rank)",
                             "MRR % (hybrid list, linear)"], rows))
    click.echo(f"kept dense weight {done.weight:g} (reciprocal rank fusions) and "
               f"{done.hybrid_weight:g} (the hybrid list) for {session.embedder.model_id} "
               f"(measured on {done.questions} questions)")


COMMANDS = [index]
