"""The `afr` command line.

Every command opens one store (a DuckDB file or a PostgreSQL URL), does one job and
prints a result; problems are one line on stderr and a non-zero exit code.
"""

from __future__ import annotations

import sys
from typing import Any

import click

from afr import __version__
from afr.progress import enabled_by_default

from . import (
    ask_commands,
    config_commands,
    eval_commands,
    index_commands,
    runs_commands,
    store_commands,
    synth_commands,
)
from .context import DB_HELP, Context, quiet_broken_pipe

# The global options that name the store, and the switch -q: accepted after the command
# too.
_STORE_OPTIONS = ("--db", "--schema")
_GLOBAL_SWITCHES = ("-q", "--quiet")


def hoist_store_options(args: list[str]) -> list[str]:
    """``args`` with ``--db``/``--schema`` (and ``-q``) given after the command moved in
    front of it (``afr ask --db x.duckdb "…"`` means ``afr --db x.duckdb ask "…"``).
    Nothing after a ``--`` is touched."""
    i = 0
    while i < len(args):  # skip the global options to the command's name
        token = args[i]
        if token in _STORE_OPTIONS:
            i += 2
        elif token.startswith("-") and token != "-":
            i += 1
        else:
            break
    head, rest, moved = args[:i], [], []
    j = i + 1
    while j < len(args):
        token = args[j]
        if token == "--":
            rest += args[j:]
            break
        if token in _STORE_OPTIONS and j + 1 < len(args):
            moved += args[j:j + 2]
            j += 2
            continue
        if token in _GLOBAL_SWITCHES or token.startswith(tuple(f"{o}=" for o in
                                                                _STORE_OPTIONS)):
            moved.append(token)
        else:
            rest.append(token)
        j += 1
    if i >= len(args):
        return args
    return head + moved + [args[i]] + rest


# click ≥ 8.2 raises this for a group called without a command (and prints its help)
_NO_ARGS_IS_HELP = getattr(click.exceptions, "NoArgsIsHelpError", ())


class AfrGroup(click.Group):
    def parse_args(self, ctx: click.Context, args: list[str]) -> list[str]:
        return super().parse_args(ctx, hoist_store_options(list(args)))

    def main(self, args: Any = None, prog_name: str | None = None,
             complete_var: str | None = None, standalone_mode: bool = True,
             **extra: Any) -> Any:
        """Click's own main, but a usage error is one line on stderr like every other
        message, ``afr: error: …`` (with where to find help), exit code 2."""
        if not standalone_mode:
            return super().main(args, prog_name, complete_var, False, **extra)
        try:
            value = super().main(args, prog_name, complete_var, False, **extra)
        except _NO_ARGS_IS_HELP as exc:  # `afr` alone: the help
            exc.show()
            sys.exit(exc.exit_code)
        except click.ClickException as exc:
            click.echo(usage_error_line(exc), err=True)
            sys.exit(exc.exit_code)
        except click.Abort:
            click.echo("afr: interrupted", err=True)
            sys.exit(130)
        # without standalone mode click returns an explicit exit's code as the value
        sys.exit(value if type(value) is int else 0)


def usage_error_line(exc: click.ClickException) -> str:
    """``exc`` as afr prints every error: one line, and where to read more."""
    message = " ".join(exc.format_message().split()).rstrip(".")
    ctx = getattr(exc, "ctx", None)
    # the command as users type it, whatever name the program was started by
    path = " ".join(["afr", *ctx.command_path.split()[1:]]) if ctx is not None else ""
    where = f" (see '{path} --help')" if ctx is not None else ""
    return f"afr: error: {message}{where}"


@click.group(cls=AfrGroup,
             context_settings={"help_option_names": ["-h", "--help"], "max_content_width": 100})
@click.option("--db", metavar="PATH|URL", help=DB_HELP)
@click.option("--schema", metavar="NAME",
              help="PostgreSQL schema holding afr's tables [env AFR_SCHEMA; default: afr].")
@click.option("--progress/--no-progress", default=None,
              help="Show progress bars (default: when stderr is a terminal and not --quiet).")
@click.option("-q", "--quiet", is_flag=True,
              help="Print the result only: no notes, counts, timings or hints on stderr "
                   "(warnings and errors still show).")
@click.version_option(__version__, prog_name="afr")
@click.pass_context
def cli(ctx: click.Context, db: str | None, schema: str | None, progress: bool | None,
        quiet: bool) -> None:
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

    --db and --schema may also follow the command: afr ask --db my.duckdb "…".
    """
    if progress is None:
        progress = enabled_by_default() and not quiet
    ctx.obj = Context(db, schema, progress, quiet)


for _module in (store_commands, index_commands, ask_commands, runs_commands, eval_commands,
                synth_commands, config_commands):
    for _command in _module.COMMANDS:
        cli.add_command(_command)


def main() -> None:
    try:
        cli(prog_name="afr")
        sys.stdout.flush()  # a closed pipe shows here at the latest
    except BrokenPipeError:
        quiet_broken_pipe()
