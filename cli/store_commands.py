"""Commands about the store itself: init, load, embed, info, sql, demo."""

from __future__ import annotations

from pathlib import Path

import click

from .context import Context, handle_errors, pass_ctx
from .output import echo_rows, format_table


@click.command()
@pass_ctx
@handle_errors
def init(ctx: Context) -> None:
    """Create (or upgrade) afr's tables in the store. `afr load` does this too."""
    store = ctx.open(write=True)
    store.init()
    click.echo(f"store ready: {store.location} (schema version {store.schema_version()})")


@click.command()
@click.argument("source", type=click.Path(path_type=Path))
@click.option("--format", "fmt", type=click.Choice(["auto", "skb", "stark"]), default="auto",
              show_default=True, help="skb: an SKB directory (skb.json, nodes.jsonl, edges.csv); "
              "stark: STaRK's processed files (node_info.pkl, edge_index.pt …).")
@click.option("--dataset", type=click.Choice(["prime", "mag", "amazon"]),
              help="STaRK dataset (default: detected from the node types).")
@click.option("--replace", is_flag=True,
              help="Replace the SKB already in the store (atomically: all or nothing).")
@pass_ctx
@handle_errors
def load(ctx: Context, source: Path, fmt: str, dataset: str | None, replace: bool) -> None:
    """Load an SKB into the store, checking everything first.

    SOURCE is an SKB directory (skb.json, nodes.jsonl[.gz], edges.csv[.gz]) or a STaRK
    processed dataset directory. A broken line, an unknown type or an edge to a missing
    node stops the load with the file, line and first examples, and the store stays as
    it was. Loading into a store that already holds an SKB needs --replace.

    \b
    Examples:
      afr load ./my-skb
      afr --db postgresql://me@localhost/kb load ./my-skb --replace
      afr load ~/stark/prime/processed --format stark
    """
    from afr.load.source import load_into

    report = load_into(ctx.db, source, schema=ctx.schema, fmt=fmt,  # type: ignore[arg-type]
                       dataset=dataset, replace=replace, progress=ctx.progress)
    verb = "replaced with" if report.replaced else "loaded"
    click.echo(
        f"{verb} SKB {report.skb!r}: {report.nodes:,} nodes, {report.edges:,} edges, "
        f"{report.aliases:,} aliases in {report.seconds:.1f} s "
        f"({report.edges_per_second:,.0f} edges/s) → {report.store}"
    )
    for warning in report.warnings:
        click.echo(f"warning: {warning}", err=True)
    click.echo("next: 'afr embed' to compute the vectors search needs", err=True)


@click.command()
@click.option("--model", "model", default=None, metavar="SPEC",
              help="Embedder: 'hash' (built-in, offline; 'hash:512' for another size), "
                   "'openai:MODEL' (any OpenAI-compatible /embeddings; URL and key from "
                   "$AFR_EMBED_BASE_URL / $AFR_EMBED_API_KEY or the LLM settings), or "
                   "'st:NAME_OR_PATH' (sentence-transformers, `pip install afr[st]`). "
                   "Default: the store's recorded embedder, else 'hash'.")
@click.option("--variant", "variants", multiple=True, type=click.Choice(["doc", "doc_rel"]),
              help="Document variant(s) to embed (default: both).")
@click.option("--batch-size", default=256, show_default=True, type=click.IntRange(1, 100000),
              help="Nodes per embedding request (each batch is committed on its own).")
@click.option("--rebuild", is_flag=True, help="Drop existing vectors and embed everything again.")
@click.option("--index", "lexical", is_flag=True,
              help="Also build the lexical (BM25) index, as `afr index` does.")
@pass_ctx
@handle_errors
def embed(ctx: Context, model: str | None, variants: tuple[str, ...], batch_size: int,
          rebuild: bool, lexical: bool) -> None:
    """Embed node documents for vector search — incremental and resumable.

    Two document variants are kept: `doc` (name, attributes, text) serves symbol search
    and ranking of grounded answers; `doc_rel` (plus relations) serves plain vector
    search. Only nodes without a vector are embedded, batch by batch, each batch
    committed: interrupt it and run it again to continue.
    """
    from afr.embed import make_embedder
    from afr.embed.spec import spec_for_store
    from afr.vectors import embed_store

    store = ctx.open(write=True)
    spec = model or spec_for_store(store) or "hash"
    embedder = make_embedder(spec)
    report = embed_store(store, embedder, variants=variants or ("doc", "doc_rel"),
                         batch_size=batch_size, rebuild=rebuild, progress=ctx.progress)
    for variant, n in report.embedded.items():
        click.echo(f"{variant}: embedded {n:,} nodes now, {report.total.get(variant, 0):,} in "
                   f"all ({report.model_id}, dim {report.dim})")
    click.echo(f"done in {report.seconds:.1f} s")
    if lexical:
        from .index_commands import build_index
        build_index(ctx, store)


@click.command()
@click.option("--json", "as_json", is_flag=True, help="Machine-readable output.")
@pass_ctx
@handle_errors
def info(ctx: Context, as_json: bool) -> None:
    """What the store holds: SKB, counts per node and edge type, embeddings, runs."""
    import json

    from afr.store import describe_store

    store = ctx.open(read_only=True)
    data = describe_store(store)
    if as_json:
        click.echo(json.dumps(data, indent=2, default=str))
        return
    click.echo(f"store:    {data['store']}")
    click.echo(f"schema:   version {data['schema_version']}")
    if not data.get("skb"):
        click.echo("SKB:      (none loaded — 'afr load DIR' or 'afr demo')")
        return
    click.echo(f"SKB:      {data['skb']} — {data['description']}")
    click.echo(f"graph:    {'directed' if data['directed'] else 'undirected'}; "
               f"candidate types: {', '.join(data['candidate_types'])}")
    click.echo("")
    click.echo(format_table(["node type", "label", "nodes", "candidate"],
                            [(t["type"], t["label"], t["count"], "yes" if t["candidate"] else "")
                             for t in data["node_types"]]))
    click.echo("")
    click.echo(format_table(["edge type", "label", "source", "target", "edges"],
                            [(t["type"], t["label"], t["source"], t["target"], t["count"])
                             for t in data["edge_types"]]))
    click.echo("")
    click.echo(format_table(["vectors", "model", "dim", "nodes", "of"],
                            [(e["variant"], e["model"], e["dim"], e["nodes"], data["nodes"])
                             for e in data["embeddings"]]))
    click.echo(f"\nruns logged: {data['runs']}   LLM calls cached: {data['llm_calls']}")


@click.command()
@click.argument("query")
@click.option("--json", "fmt", flag_value="json", help="Rows as a JSON list of objects.")
@click.option("--csv", "fmt", flag_value="csv", help="Rows as CSV with a header.")
@click.option("--max-width", default=60, show_default=True,
              help="Truncate table cells to this many characters (0: never).")
@pass_ctx
@handle_errors
def sql(ctx: Context, query: str, fmt: str | None, max_width: int) -> None:
    """Run one read-only SQL query against the store and print the rows.

    The connection is read-only (DuckDB: a read-only connection; PostgreSQL: a
    read-only transaction), so nothing here can change the store.

    \b
    Examples:
      afr sql "SELECT type, count(*) AS n FROM nodes GROUP BY type ORDER BY n DESC"
      afr sql "SELECT * FROM run_answers WHERE run_id = (SELECT max(run_id) FROM runs)" --json
    """
    store = ctx.open(read_only=True)
    columns, rows = store.query_with_columns(query)
    echo_rows(columns, rows, fmt or "table", max_width=max_width)


@click.command()
@click.option("--rebuild", is_flag=True, help="Load and embed the demo again from scratch.")
@pass_ctx
@handle_errors
def demo(ctx: Context, rebuild: bool) -> None:
    """Set up the bundled demo SKB (Python's standard library) in the cache.

    Loads it into a DuckDB file under $AFR_CACHE_DIR (default ~/.cache/afr/demo.duckdb)
    and embeds it with the built-in offline embedder. `afr ask` does this on first use.
    """
    from afr.demo import example_question, setup_demo

    path = setup_demo(ctx.db, rebuild=rebuild, progress=ctx.progress)
    click.echo(f"demo store ready: {path}")
    question = example_question()
    if question:
        click.echo(f'try: afr ask "{question}"')


COMMANDS = [init, load, embed, info, sql, demo]
