"""Commands about the store itself: init, load, embed, info, sql, demo."""

from __future__ import annotations

import click

from .context import Context, UsageProblem, handle_errors, note, pass_ctx, warn
from .hints import command, in_text
from .index_commands import build_index
from .output import echo_rows, format_table, json_text


@click.command()
@click.option("--print-sql", "print_sql", is_flag=True,
              help="Print the DDL for the store instead of running it (nothing is opened): "
                   "for a DBA to review and apply, e.g. with psql.")
@click.option("--dim", type=click.IntRange(1, 16000), default=None,
              help="With --print-sql: also the vector tables for embeddings of this size "
                   "(384 for the built-in 'hash' embedder), with their HNSW indexes on "
                   "PostgreSQL.")
@pass_ctx
@handle_errors
def init(ctx: Context, print_sql: bool, dim: int | None) -> None:
    """Create (or upgrade) afr's tables in the store. `afr load` does this too.

    \b
    Examples:
      afr --db postgresql://dba@db/kb --schema afr init --print-sql --dim 384 > afr.sql
      psql postgresql://dba@db/kb -f afr.sql
    """
    if dim is not None and not print_sql:
        raise click.UsageError("--dim goes with --print-sql ('afr embed' sizes the tables)")
    if print_sql:
        from afr.store import store_ddl_for

        click.echo(store_ddl_for(ctx.db, schema=ctx.schema, dim=dim), nl=False)
        return
    store = ctx.open(write=True, create=True)
    store.init()
    click.echo(f"store ready: {store.location} (schema version {store.schema_version()})")


@click.command()
@click.argument("source")
@click.option("--format", "fmt",
              type=click.Choice(["auto", "skb", "parquet", "delta", "iceberg", "stark"]),
              default="auto", show_default=True,
              help="skb: an SKB directory (skb.json, nodes.jsonl, edges.csv — or the two "
              "tables as Parquet, Delta or Iceberg tables); parquet: one whose tables are "
              "Parquet (nodes.parquet, edges.parquet: files or folders of part files); "
              "delta, iceberg: one whose tables are Delta Lake or Iceberg tables (folders "
              "nodes/ and edges/; needs afr[delta] or afr[iceberg]); stark: STaRK's "
              "processed files (node_info.pkl, edge_index.pt …).")
@click.option("--dataset", type=click.Choice(["prime", "mag", "amazon"]),
              help="STaRK dataset (default: detected from the node types).")
@click.option("--replace", is_flag=True,
              help="Replace the SKB already in the store (atomically: all or nothing).")
@click.option("--nodes-table", metavar="NAME",
              help="Read the nodes from this table of the store's own database "
                   "(schema.table of the DuckDB file or the PostgreSQL database; on Spark "
                   "any table its catalog names, Delta or Iceberg included) instead of "
                   "SOURCE's nodes file; SOURCE then needs only skb.json.")
@click.option("--edges-table", metavar="NAME",
              help="The same for the edges (columns src, type, dst).")
@pass_ctx
@handle_errors
def load(ctx: Context, source: str, fmt: str, dataset: str | None, replace: bool,
         nodes_table: str | None, edges_table: str | None) -> None:
    """Load an SKB into the store, checking everything first.

    SOURCE is an SKB directory (skb.json, nodes.jsonl[.gz], edges.csv[.gz]; or
    nodes.parquet and edges.parquet with the same columns, or nodes/ and edges/ as Delta
    Lake or Iceberg tables; or tables the store's catalog holds, named by --nodes-table
    and --edges-table), a STaRK processed dataset
    directory, or `demo`: the bundled demo SKB. A broken line, an unknown type or an edge
    to a missing node stops the load with the file, line (or row) and first examples, and
    the store stays as it was. Loading into a store that already holds an SKB needs
    --replace.

    \b
    Examples:
      afr load ./my-skb
      afr --db postgresql://me@localhost/kb load ./my-skb --replace
      afr load ~/stark/prime/processed --format stark
      afr load ./my-tables --format parquet
      afr load ./my-lakehouse-skb --format delta
      afr --db postgresql://me@localhost/kb load demo
      afr --db kb.duckdb load ./schema --nodes-table lake.nodes --edges-table lake.edges
    """
    from afr.load import load_into

    report = load_into(ctx.resolve().settings.store, source, fmt=fmt,  # type: ignore[arg-type]
                       dataset=dataset, replace=replace, progress=ctx.progress,
                       nodes_table=nodes_table, edges_table=edges_table)
    verb = "replaced with" if report.replaced else "loaded"
    click.echo(
        f"{verb} SKB {report.skb!r}: {report.nodes:,} nodes, {report.edges:,} edges, "
        f"{report.aliases:,} aliases in {report.seconds:.1f} s "
        f"({report.edges_per_second:,.0f} edges/s) → {report.store}"
    )
    for warning in report.warnings:
        warn(warning)
    note("next, compute the vectors search needs: " + command("load.next", "embed"))


@click.command()
@click.option("--model", "model", default=None, metavar="SPEC",
              help="Embedder: 'hash' (built-in, offline; 'hash:512' for another size), "
                   "'openai:MODEL' (any OpenAI-compatible /embeddings; URL and key from "
                   "$AFR_EMBED_BASE_URL / $AFR_EMBED_API_KEY or the LLM settings), "
                   "'st:NAME_OR_PATH' (sentence-transformers, `pip install afr[st]`), "
                   "'m2v:PATH' (a static model distilled by `python -m afr.embed.distill`: "
                   "fast, offline; `pip install afr[fast]`), or 'onnx:DIR' (a "
                   "transformer run by ONNX Runtime, exported by `python -m "
                   "afr.embed.onnx_export`, int8 if asked; `pip install afr[onnx]`). "
                   "Default: the store's recorded embedder, else 'hash'.")
@click.option("--variant", "variants", multiple=True, type=click.Choice(["doc", "doc_rel"]),
              help="Document variant(s) to embed (default: both).")
@click.option("--batch-size", default=256, show_default=True, type=click.IntRange(1, 100000),
              help="Nodes per embedding request (what is embedded is committed at least "
                   "every second, and when the embedder fails).")
@click.option("--rebuild", is_flag=True,
              help="Embed everything again into shadow tables that replace the old vectors "
                   "only when complete (a rerun continues an unfinished rebuild).")
@click.option("--index/--no-index", "lexical", default=True, show_default=True,
              help="Also build (or top up) the lexical (BM25) index that hybrid ranking "
                   "uses, as `afr index` does.")
@pass_ctx
@handle_errors
def embed(ctx: Context, model: str | None, variants: tuple[str, ...], batch_size: int,
          rebuild: bool, lexical: bool) -> None:
    """Embed node documents for vector search — incremental and resumable.

    Two document variants are kept: `doc` (name, attributes, text) serves symbol search
    and ranking of grounded answers; `doc_rel` (plus relations) serves plain vector
    search. Only nodes without a vector are embedded, batch by batch, committed at least
    every second: interrupt it and run it again to continue.
    """
    from afr.embed import embedding_endpoint, make_embedder, spec_for_store
    from afr.vectors import embed_store

    settings = ctx.resolve().settings
    store = ctx.open(write=True)
    try:
        spec = model or spec_for_store(store) or "hash"
        embedder = make_embedder(spec, embedding_endpoint(settings.embed, settings.llm))
        report = embed_store(store, embedder, variants=variants or ("doc", "doc_rel"),
                             batch_size=batch_size, rebuild=rebuild, progress=ctx.progress)
        if lexical:
            build_index(ctx, store)
    finally:
        store.close()  # at once, also after a failure: DuckDB allows one writer
    if report.resumed:
        click.echo(f"continued the unfinished rebuild of {', '.join(report.resumed)}")
    for variant, n in report.embedded.items():
        click.echo(f"{variant}: embedded {n:,} nodes now, {report.total.get(variant, 0):,} in "
                   f"all ({report.model_id}, dim {report.dim})")
    if report.rebuilt:
        click.echo(f"rebuilt {', '.join(report.rebuilt)}: the new vectors replace the old ones")
    for text in report.notes:
        note(text)
    click.echo(f"done in {report.seconds:.1f} s")


@click.command()
@click.option("--json", "as_json", is_flag=True, help="Machine-readable output.")
@pass_ctx
@handle_errors
def info(ctx: Context, as_json: bool) -> None:
    """What the store holds: SKB, counts per node and edge type, embeddings, the lexical
    index, the similarity graph, vector indexes, runs; and the LLM afr would ask."""
    from afr.store import describe_store

    store = ctx.open(read_only=True)
    data = describe_store(store)
    if data.get("skb"):
        data.update(_index_state(store))
    data["llm"] = _llm_state(ctx.resolve().settings.llm)
    if as_json:
        data["demo_store"] = ctx.is_demo
        click.echo(json_text(data))
        return
    click.echo(f"store:    {ctx.store_label(store)}")
    click.echo(f"schema:   version {data['schema_version']}")
    if not data.get("skb"):
        click.echo("SKB:      none loaded; " + in_text("'afr load DIR'") + " loads yours, "
                   "and the bundled demo: " + command("info.no_skb", "demo"))
        _echo_llm(data["llm"])
        return
    click.echo(f"SKB:      {data['skb']}" + (f" — {data['description']}"
                                              if data["description"] else ""))
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
    _echo_indexes(data)
    click.echo(f"\nruns logged: {data['runs']}   LLM calls cached: {data['llm_calls']}")
    _echo_llm(data["llm"])


def _index_state(store) -> dict:
    """The lexical index, the similarity graph and the approximate vector indexes."""
    import dataclasses

    from afr.lexical import lexical_state
    from afr.vectors import similarity_state

    lexical, similarity = lexical_state(store), similarity_state(store)
    return {
        "lexical": None if lexical is None else dataclasses.asdict(lexical),
        "similarity": None if similarity is None else dataclasses.asdict(similarity),
        "vector_indexes": [{"name": n, "table": t, "bytes": b}
                           for n, t, b in store.vector_indexes()],
        "vector_search": "approximate (HNSW) where indexed" if store.builds_vector_indexes
        else "exact",
    }


def _llm_state(llm) -> dict:
    """The LLM afr would ask (never its key)."""
    offline = llm.offline if llm.offline is not None else not llm.configured
    return {"configured": llm.configured, "offline": offline, "base_url": llm.base_url,
            "model": llm.model, "timeout_s": llm.timeout_s, "api_key_set": bool(llm.api_key)}


def _echo_indexes(data: dict) -> None:
    from afr.store import size_text

    click.echo(format_table(["vectors", "model", "dim", "nodes", "of"],
                            [(e["variant"], e["model"], e["dim"], e["nodes"], data["nodes"])
                             for e in data["embeddings"]]))
    lex = data["lexical"]
    if lex is None or not lex["indexed"]:
        click.echo("lexical:  no BM25 index ('afr index' builds it)")
    else:
        click.echo(f"lexical:  BM25 index of {lex['indexed']:,} of {lex['nodes']:,} nodes "
                   f"({lex['postings']:,} postings, {lex['terms']:,} terms)"
                   + ("; statistics stale: 'afr index' again" if lex["stale"] else ""))
        if lex["postings_file"]:
            click.echo(f"          BM25 reads the mapped postings file {lex['postings_file']}")
        elif lex["maps_postings"] and not lex["stale"]:
            click.echo("          BM25 runs in SQL: no current postings file ('afr index' "
                       "writes the one BM25 reads faster)")
    sim = data["similarity"]
    if sim is None:
        click.echo("similar:  no similarity graph ('afr index --similarity' builds it)")
    else:
        click.echo(f"similar:  similarity graph of {sim['nodes']:,} nodes, {sim['pairs']:,} "
                   f"pairs (mean {sim['degree_mean']:.1f} per node; k_cand {sim['k_cand']} "
                   f"by {sim['knn']} kNN, percentile {sim['percentile']:g}, {sim['embedder']})"
                   + ("; stale, the doc vectors changed since: 'afr index --similarity'"
                      if sim["stale"] else ""))
    indexes = data["vector_indexes"]
    if data["vector_search"] == "exact":
        click.echo("search:   exact vector search (no approximate index on this store)")
    elif not indexes:
        click.echo("search:   no HNSW index yet: exact scans ('afr embed' by the tables' "
                   "owner builds them)")
    else:
        click.echo("search:   HNSW " + ", ".join(f"{i['name']} ({size_text(i['bytes'])})"
                                                 for i in indexes))
    memory = data["server_memory"]
    if memory is not None:
        click.echo(f"server:   shared_buffers {size_text(memory['shared_buffers'])}, "
                   f"afr's HNSW indexes {size_text(memory['vector_indexes'])}")


def _echo_llm(llm: dict) -> None:
    if llm["configured"] and not llm["offline"]:
        click.echo(f"LLM:      {llm['model']} at {llm['base_url'] or 'the OpenAI API'} "
                   f"(timeout {llm['timeout_s']:g} s)")
    elif llm["configured"]:
        click.echo(f"LLM:      {llm['model']} configured, but offline (--offline / "
                   "llm.offline): no LLM is asked")
    elif llm["base_url"] or llm["model"]:
        missing = "AFR_LLM_MODEL" if llm["base_url"] else "AFR_LLM_BASE_URL or an API key"
        click.echo(f"LLM:      {llm['model'] or llm['base_url']} alone: offline mode "
                   f"(set {missing} too)")
    else:
        click.echo("LLM:      none configured: offline mode (set AFR_LLM_BASE_URL and "
                   "AFR_LLM_MODEL, or [llm] in the settings file: docs/settings.md)")


# Rows `afr sql` prints as a table unless --limit says otherwise: a terminal's worth of
# reading, not a 600,000-row result formatted for nobody.
TABLE_ROWS = 1000


@click.command()
@click.argument("query")
@click.option("--json", "as_json", is_flag=True,
              help="Rows as a JSON list of objects (JSON columns nested).")
@click.option("--csv", "as_csv", is_flag=True, help="Rows as CSV with a header.")
@click.option("--param", "params", multiple=True, metavar="NAME=VALUE",
              help="A value for the placeholder $NAME in QUERY, bound (never pasted in); "
                   "VALUE is read as JSON when it is JSON (42, [1, 2], \"text\"), else as "
                   "text. Repeatable.")
@click.option("--max-width", default=60, show_default=True, type=click.IntRange(0),
              help="Truncate table cells to this many characters (0: never).")
@click.option("--limit", type=click.IntRange(0), default=None, metavar="N",
              help=f"Print at most N rows, with a note when the query returns more "
                   f"(0: every row) [default: {TABLE_ROWS} in a table, every row with "
                   "--json or --csv].")
@pass_ctx
@handle_errors
def sql(ctx: Context, query: str, as_json: bool, as_csv: bool, params: tuple[str, ...],
        max_width: int, limit: int | None) -> None:
    """Run one read-only SQL query against the store and print the rows (QUERY `-`: read
    it from stdin).

    The connection is read-only (DuckDB: a read-only connection; PostgreSQL: a
    read-only transaction), so nothing here can change the store. `afr cypher --sql`
    and `afr ask --explain` print SQL that runs here as it is. One statement at a time:
    a query holding several is refused.

    \b
    Examples:
      afr sql "SELECT type, count(*) AS n FROM nodes GROUP BY type ORDER BY n DESC"
      afr sql "SELECT * FROM run_answers WHERE run_id = (SELECT run_id FROM runs ORDER BY created_at DESC LIMIT 1)" --json
      afr sql "SELECT ext_id, name FROM nodes WHERE type = $t LIMIT 5" --param t=exception
    """
    from afr.store import bind_user_params, split_sql

    from .sqltext import parse_params

    if as_json and as_csv:
        raise UsageProblem("--json and --csv exclude each other: choose one")
    if query == "-":
        query = click.get_text_stream("stdin").read()
    statements = split_sql(query)
    if len(statements) != 1:
        raise UsageProblem("no SQL statement in the query" if not statements else
                           f"afr sql runs one statement at a time; the query holds "
                           f"{len(statements)}: run each on its own")
    fmt = "json" if as_json else "csv" if as_csv else "table"
    cap = (TABLE_ROWS if fmt == "table" else 0) if limit is None else limit
    store = ctx.open(read_only=True)
    statement, values = bind_user_params(query, parse_params(params), store.dialect)
    columns, rows = store.query_with_columns(statement, values,
                                             max_rows=cap + 1 if cap else None)
    cut = bool(cap) and len(rows) > cap
    echo_rows(columns, rows[:cap] if cut else rows, fmt, max_width=max_width)
    if cut:
        note(f"only the first {cap:,} rows are shown: the query returns more (--limit N "
             "for more, --limit 0 for every row)")


@click.command()
@click.option("--rebuild", is_flag=True, help="Load and embed the demo again from scratch.")
@pass_ctx
@handle_errors
def demo(ctx: Context, rebuild: bool) -> None:
    """Set up the bundled demo SKB (Python's standard library), ready to ask.

    Loads it into the store --db names (a DuckDB file or a postgresql:// URL; default:
    a DuckDB file under $AFR_CACHE_DIR, ~/.cache/afr/demo.duckdb) and makes everything
    the methods need: vectors (the built-in offline embedder), the lexical index and
    the similarity graph. A store holding another SKB is left alone. `afr ask` sets up
    the cached one on first use.

    \b
    Examples:
      afr demo
      afr demo --db demo.duckdb
      afr demo --db postgresql://me@localhost/kb --schema demo
    """
    from afr.demo import example_question, setup_demo

    done = setup_demo(ctx.resolve().settings.store, rebuild=rebuild, progress=ctx.progress)
    ctx.used_store = done.path
    click.echo(f"demo store ready: {done.location}"
               + ("" if done.built else " (it was ready already)"))
    question = example_question()
    if question:
        click.echo("try: " + command("demo.try", "ask", question))


COMMANDS = [init, load, embed, info, sql, demo]
