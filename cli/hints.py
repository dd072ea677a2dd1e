"""The commands afr prints for the user to run next, rendered so that they run as printed.

A hint names the store the user is working on: the ``--db`` and ``--schema`` given on the
command line are repeated (shell-quoted), and so is the store a command found by itself
when the hinted command, run from here, would not find it again (the demo store in the
cache once ``./afr.duckdb`` exists). A store named by ``$AFR_DB``/``$AFR_SCHEMA`` or the
settings file is not repeated: the same environment names it again. A password in a URL is
never printed: the hint names the URL without it.

``command`` renders one hint; ``in_text`` renders the hints that messages from the
library quote (``'afr embed'``, ``'afr load DIR'``) the same way. ``HINTS`` names every
hint the CLI prints itself; tests/test_hints.py runs each one as printed.
"""

from __future__ import annotations

import re
import shlex
from pathlib import Path

import click

#: Every command the CLI itself prints for the user to run (kind → where it shows).
HINTS = {
    "load.next": "after afr load: compute the vectors",
    "demo.try": "after afr demo: a first question",
    "info.no_skb": "afr info on a store without an SKB: load the demo into it",
    "eval.resume": "afr eval stopped (Ctrl-C, or the LLM is down): carry on",
    "eval.show": "afr eval finished: its summary",
    "eval.export": "afr eval finished: its results as CSV",
}

# The commands that write: run bare, they open ./afr.duckdb (never the demo fallback).
_WRITERS = {"init", "load", "embed", "index"}
# A command quoted in a message: 'afr embed', 'afr load DIR' (no quote inside).
_QUOTED = re.compile(r"'afr((?: [^'\s][^']*)?)'")


def _context():
    """The command line's Context (afr.cli.context; the root's object, so that this
    module needs no import of it)."""
    click_ctx = click.get_current_context(silent=True)
    return click_ctx.find_root().obj if click_ctx is not None else None


def _without_password(db: str) -> str:
    """A store's name for a hint: a URL's password is left out (libpq then reads it from
    $PGPASSWORD or ~/.pgpass): afr prints no secret, not even one the user typed."""
    return re.sub(r"(://[^:/@]*):[^@/]*@", r"\1@", db)


def _same_place(a: str | Path, b: str | Path) -> bool:
    try:
        return Path(a).expanduser().resolve() == Path(b).expanduser().resolve()
    except OSError:
        return False


def store_options(ctx, command: str) -> list[str]:
    """The ``--db``/``--schema`` a hint for ``command`` needs to reach the store ``ctx``
    works on (see the module's docstring)."""
    if ctx is None:
        return []
    options: list[str] = []
    db = ctx.flags.get("store.db")
    if db:
        options += ["--db", _without_password(db)]
    elif ctx.resolve().settings.store.db is None and ctx.used_store is not None \
            and not _same_place(ctx.used_store, _bare_target(ctx, command)):
        options += ["--db", str(ctx.used_store)]
    schema = ctx.flags.get("store.schema")
    if schema:
        options += ["--schema", schema]
    return options


def _bare_target(ctx, command: str) -> Path:
    """The DuckDB file ``afr COMMAND`` opens from here with no store named."""
    from afr.demo import demo_store_path
    from afr.store import DEFAULT_DB

    settings = ctx.resolve().settings.store
    if command == "demo":
        return demo_store_path(settings)
    if command in _WRITERS or Path(DEFAULT_DB).exists():
        return Path(DEFAULT_DB)
    return demo_store_path(settings)


def command(kind: str, *args: str) -> str:
    """The hint ``afr ARGS…`` with the store options in force, quoted for the shell."""
    if kind not in HINTS:
        raise KeyError(f"unregistered hint {kind!r}")
    options = store_options(_context(), args[0] if args else "")
    return shlex.join(["afr", *args, *options])


def in_text(text: str) -> str:
    """``text`` with each quoted ``'afr …'`` command given the store options in force (a
    placeholder such as DIR stays as it is)."""
    ctx = _context()
    if ctx is None or "'afr" not in text:
        return text

    def render(match: re.Match[str]) -> str:
        rest = match.group(1).strip()
        options = store_options(ctx, rest.split(" ", 1)[0] if rest else "")
        if not options:
            return match.group(0)
        line = " ".join(["afr", rest, shlex.join(options)] if rest
                        else ["afr", shlex.join(options)])
        return f'"{line}"' if "'" in line else f"'{line}'"

    return _QUOTED.sub(render, text)
