"""`afr index`: the lexical (BM25) index of the node documents."""

from __future__ import annotations

import click

from .context import Context, handle_errors, pass_ctx


def build_index(ctx: Context, store) -> None:
    """Build (or top up) the lexical index and say what it holds: shared by `afr index`
    and the --index flag of load and embed."""
    from afr.lexical import BM25Params
    from afr.lexical.index import build_lexical_index

    report = build_lexical_index(store, params=BM25Params.from_settings(),
                                 progress=ctx.progress)
    click.echo(f"lexical index: {report.indexed:,} nodes indexed now, {report.total:,} of "
               f"{report.nodes:,} in all ({report.postings:,} postings, {report.terms:,} "
               f"terms) in {report.seconds:.1f} s")


@click.command()
@pass_ctx
@handle_errors
def index(ctx: Context) -> None:
    """Build the lexical index BM25 ranks with — incremental and resumable.

    Tokenises every node's `doc` document (name, aliases, attributes, text: lowercase
    Unicode words, English stopwords dropped) into SQL tables (lex_postings, lex_docs,
    lex_df, lex_stats). Only nodes not yet indexed are tokenised, batch by batch, each
    batch committed; document frequencies are recomputed at the end.
    """
    store = ctx.open(write=True)
    try:
        build_index(ctx, store)
    finally:
        store.close()


COMMANDS = [index]
