"""What every command shares: the chosen store (``Context``) and the error discipline
(``handle_errors``: one line on stderr and an exit code, never a traceback)."""

from __future__ import annotations

import functools
import os
import sys
import traceback
from collections.abc import Callable
from typing import Any, TypeVar

import click

from afr.errors import AfrError

F = TypeVar("F", bound=Callable[..., Any])

DB_HELP = (
    "Store: a DuckDB file path or a postgresql:// URL. Default: $AFR_DB, else ./afr.duckdb "
    "(commands that only read fall back to the bundled demo store, set up in the cache on "
    "first use, when ./afr.duckdb is absent)."
)


class Context:
    def __init__(self, db: str | None, schema: str | None, progress: bool) -> None:
        self.db = db
        self.schema = schema
        self.progress = progress

    def open(self, *, write: bool = False, read_only: bool = False, create: bool = False):
        """Open the chosen store (``afr.demo.open_store_for``: commands that do not
        ``write`` may fall back to the demo store; only ``create`` makes a new one)."""
        from afr.demo import open_store_for

        return open_store_for(self.db, schema=self.schema, write=write, read_only=read_only,
                              create=create, progress=self.progress)


def handle_errors(func: F) -> F:
    """Turn every failure into one line on stderr and an exit code; never a traceback."""

    @functools.wraps(func)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        try:
            return func(*args, **kwargs)
        except AfrError as exc:
            click.echo(f"afr: error: {exc}", err=True)
            sys.exit(exc.exit_code)
        except KeyboardInterrupt:
            click.echo("afr: interrupted", err=True)
            sys.exit(130)
        except click.exceptions.Exit:
            raise
        except (click.ClickException, click.Abort):
            raise
        except Exception as exc:  # noqa: BLE001 - the last line of defence for users
            if os.environ.get("AFR_DEBUG"):
                traceback.print_exc()
            first = " ".join(str(exc).split())[:300]
            click.echo(
                f"afr: internal error: {type(exc).__name__}: {first} "
                "(set AFR_DEBUG=1 to see the traceback; please report it)",
                err=True,
            )
            sys.exit(70)

    return wrapper  # type: ignore[return-value]


pass_ctx = click.make_pass_decorator(Context)
