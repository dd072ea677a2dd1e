"""What every command shares: the chosen store (``Context``) and the error discipline
(``handle_errors``: one line on stderr and an exit code, never a traceback)."""

from __future__ import annotations

import functools
import os
import sys
import traceback
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any, TypeVar

import click

from afr.errors import AfrError
from afr.settings import Resolved, debug_enabled, resolve_settings

F = TypeVar("F", bound=Callable[..., Any])

DB_HELP = (
    "Store: a DuckDB file path or a postgresql:// URL. Default: $AFR_DB, else ./afr.duckdb "
    "(commands that only read fall back to the bundled demo store, set up in the cache on "
    "first use, when ./afr.duckdb is absent)."
)


class UsageProblem(AfrError):
    """Options that do not go together: exit code 2, as for click's usage errors."""

    exit_code = 2


def _quiet() -> bool:
    click_ctx = click.get_current_context(silent=True)
    ctx = click_ctx.find_object(Context) if click_ctx is not None else None
    return bool(ctx is not None and ctx.quiet)


def note(message: str) -> None:
    """Something worth knowing about a result, on stderr (the commands it quotes run as
    printed: ``hints.in_text``); not with -q."""
    from .hints import in_text

    if not _quiet():
        click.echo(f"afr: note: {in_text(message)}", err=True)


def aside(message: str) -> None:
    """What a person at the terminal may want beside the result — counts, timings, the
    store that answered, what to run next — on stderr, so that stdout stays the result;
    not with -q."""
    if not _quiet():
        click.echo(message, err=True)


def warn(message: str) -> None:
    """Something that may be wrong, though the command went on, on stderr."""
    from .hints import in_text

    click.echo(f"afr: warning: {in_text(message)}", err=True)


def error(message: str) -> None:
    """What stopped the command, on stderr (the caller exits non-zero)."""
    from .hints import in_text

    click.echo(f"afr: error: {in_text(message)}", err=True)


class Context:
    """What the command line chose: the global options, and the settings resolved from
    them and the command's own options (once per command)."""

    def __init__(self, db: str | None, schema: str | None, progress: bool,
                 quiet: bool = False) -> None:
        self.progress = progress
        #: -q: no notes, no asides (warnings and errors still show)
        self.quiet = quiet
        # the global options, as settings (only those given)
        self.flags = {p: v for p, v in (("store.db", db), ("store.schema", schema)) if v}
        self._resolved: Resolved | None = None
        #: Whether the last store opened is the bundled demo store (the read-only fallback).
        self.is_demo = False
        #: The DuckDB file the command works on, when it found one itself (hints name it).
        self.used_store: Path | None = None

    def resolve(self, flags: Mapping[str, Any] | None = None) -> Resolved:
        """The command's settings: its own ``flags`` and the global ones over the
        environment, the settings file and the defaults (resolved once)."""
        if self._resolved is None or flags:
            self._resolved = resolve_settings({**self.flags, **(flags or {})})
        return self._resolved

    @property
    def db(self) -> str | None:
        return self.resolve().settings.store.db

    @property
    def schema(self) -> str:
        return self.resolve().settings.store.schema

    def open(self, *, write: bool = False, read_only: bool = False, create: bool = False,
             logs: bool = False, writes_nothing: bool = False):
        """Open the chosen store (``afr.demo.open_store_for``: commands that do not
        ``write`` may fall back to the demo store; only ``create`` makes a new one).

        ``logs``: the command only reads, but logs what it did (afr ask): when other
        processes hold the DuckDB file to read, which keeps every writer out, it opens
        the store read-only beside them and says that its run goes unlogged.
        ``writes_nothing``: a DuckDB file opens read-only, so that other readers may open
        it too (PostgreSQL's read-only mode is for the SQL users type: not needed there).
        """
        from afr.demo import demo_store_path, open_store_for
        from afr.errors import StoreLockedError
        from afr.store import is_postgres_url

        settings = self.resolve().settings.store
        if writes_nothing and not is_postgres_url(settings.db or ""):
            read_only = True
        try:
            store = open_store_for(settings, write=write, read_only=read_only, create=create,
                                   progress=self.progress, building_demo=_building_demo)
        except StoreLockedError as exc:
            if not (logs and exc.readers_only):
                raise
            store = open_store_for(settings, read_only=True, progress=self.progress)
            note(f"{exc}; opened read-only beside it instead: this run will not be logged")
        store.progress = self.progress  # Spark's progress during long statements
        path = getattr(store, "path", None)
        self.used_store = path
        self.is_demo = path is not None and _same_file(path, demo_store_path(settings))
        # Closed when the command ends, however it ends (closing twice is harmless): an
        # error must not leave the file open in a process that goes on (tests, scripts).
        click_ctx = click.get_current_context(silent=True)
        if click_ctx is not None:
            click_ctx.call_on_close(store.close)
        return store

    def store_label(self, store) -> str:
        """The store that answered, for people: its path or its URL without a password,
        and whether it is the bundled demo."""
        return store.location + (" (the bundled demo store)" if self.is_demo else "")


def _building_demo(path: Path) -> None:
    note(f"setting up the bundled demo store in {path} (first use: loading and embedding "
         "the demo SKB takes a few seconds)")


def _same_file(a, b) -> bool:
    try:
        return Path(a).resolve() == Path(b).resolve()
    except OSError:
        return False


def quiet_broken_pipe() -> None:
    """The reader of our output went away (``afr info | head -1``): stop quietly, as other
    command-line tools do, with the exit code of a process that SIGPIPE ended."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())  # Python's final flush must not fail again
    except (OSError, ValueError):
        pass
    sys.exit(141)


def handle_errors(func: F) -> F:
    """Turn every failure into one line on stderr and an exit code; never a traceback."""

    @functools.wraps(func)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        try:
            return func(*args, **kwargs)
        except BrokenPipeError:
            quiet_broken_pipe()
        except AfrError as exc:
            error(str(exc))
            sys.exit(exc.exit_code)
        except KeyboardInterrupt:
            click.echo("afr: interrupted", err=True)
            sys.exit(130)
        except click.exceptions.Exit:
            raise
        except (click.ClickException, click.Abort):
            raise
        except Exception as exc:  # noqa: BLE001 - the last line of defence for users
            if debug_enabled():
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
