"""The `afr` command line.

Every command opens one store (a DuckDB file or a PostgreSQL URL), does one job and
prints a result; problems are one line on stderr and a non-zero exit code.
"""

from __future__ import annotations

import click

from afr import __version__
from afr.progress import enabled_by_default

from . import ask_commands, eval_commands, index_commands, store_commands, synth_commands
from .context import DB_HELP, Context


@click.group(context_settings={"help_option_names": ["-h", "--help"], "max_content_width": 100})
@click.option("--db", metavar="PATH|URL", help=DB_HELP)
@click.option("--schema", envvar="AFR_SCHEMA", metavar="NAME",
              help="PostgreSQL schema holding afr's tables (default: afr).")
@click.option("--progress/--no-progress", default=None,
              help="Show progress bars (default: when stderr is a terminal).")
@click.version_option(__version__, prog_name="afr")
@click.pass_context
def cli(ctx: click.Context, db: str | None, schema: str | None, progress: bool | None) -> None:
    """afr — multi-hop question answering over semi-structured knowledge bases, in SQL.

    \b
    Quick start (offline, on the bundled demo SKB of Python's standard library):
      afr ask "Which exceptions in the json module inherit from ValueError?"

    \b
    Your own SKB (see the SKB directory format in the README):
      afr load ./my-skb          # into ./afr.duckdb
      afr embed                  # vectors for search (built-in embedder by default)
      afr info                   # what is in the store
      afr sql "SELECT type, count(*) FROM nodes GROUP BY type"

    \b
    PostgreSQL with pgvector instead of a DuckDB file:
      afr --db postgresql://user@host/db load ./my-skb
    """
    ctx.obj = Context(db, schema, enabled_by_default() if progress is None else progress)


for _module in (store_commands, index_commands, ask_commands, eval_commands, synth_commands):
    for _command in _module.COMMANDS:
        cli.add_command(_command)


def main() -> None:
    cli(prog_name="afr")
