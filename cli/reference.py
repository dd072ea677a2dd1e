"""The command reference (docs/cli.md) and the settings lists, generated from the code.

``render_reference()`` walks ``afr.cli.main.cli`` — every command and subcommand, in the
order the CLI adds them — and writes each one's usage line, help text and options (their
help, defaults, ranges and choices exactly as ``--help`` shows them) as Markdown.
``render_settings()`` lists every setting of the settings tree (``afr.settings.tree``) with
its default, flag and environment variables; ``render_settings_sections()`` is the short
form the README shows. The documents keep the output between cog markers: ``cog -r
docs/cli.md README.md`` regenerates it, and ``tests/test_docs.py`` runs cog in check mode
so the pages never drift from the code.
"""

from __future__ import annotations

import inspect
import re
import textwrap
from collections.abc import Iterator

import click

# A paragraph click must not rewrap starts with a line holding only "\b".
_NO_REWRAP = "\b"
# Outside code spans, what Markdown would read as emphasis or as an HTML tag.
_MARKUP = re.compile(r"\*|<(?=[A-Za-z/!?])")


def commands(root: click.Command | None = None) -> Iterator[tuple[click.Context, click.Command]]:
    """(context, command) for ``root`` (default: the `afr` group) and every visible command
    below it, depth first; ``context.command_path`` is the full name (``afr eval run``)."""
    if root is None:
        from afr.cli.main import cli

        root = cli
    top = click.Context(root, info_name="afr", **root.context_settings)

    def walk(ctx: click.Context, command: click.Command):
        yield ctx, command
        if isinstance(command, click.Group):
            for name, sub in command.commands.items():
                if not sub.hidden:
                    yield from walk(click.Context(sub, info_name=name, parent=ctx), sub)

    yield from walk(top, root)


def anchor(command_path: str) -> str:
    """The heading anchor of a command's section (``afr eval run`` → ``afr-eval-run``)."""
    return command_path.replace(" ", "-")


def usage(ctx: click.Context, command: click.Command) -> str:
    return " ".join([ctx.command_path, *command.collect_usage_pieces(ctx)])


def _escape(text: str) -> str:
    """``text`` with Markdown's markup characters escaped outside its `code spans`."""
    parts = re.split(r"(`[^`]*`)", text)
    return "".join(p if p.startswith("`") else _MARKUP.sub(lambda m: "\\" + m.group(0), p)
                   for p in parts)


def help_markdown(text: str) -> str:
    """A click help text as Markdown: its paragraphs, and each paragraph click keeps as
    written (``\\b``) as a text block."""
    text = inspect.cleandoc(text).split("\f", 1)[0]
    out = []
    for para in re.split(r"\n\s*\n", text.strip()):
        lines = para.splitlines()
        if lines and lines[0].strip() == _NO_REWRAP:
            out.append("```text\n" + textwrap.dedent("\n".join(lines[1:])).strip("\n")
                       + "\n```")
        else:
            out.append(_escape(" ".join(line.strip() for line in lines)))
    return "\n\n".join(out)


def _options(ctx: click.Context, command: click.Command) -> list[str]:
    rows = []
    for param in command.get_params(ctx):
        if not isinstance(param, click.Option) or set(param.opts) & set(ctx.help_option_names):
            continue  # every command has -h/--help
        record = param.get_help_record(ctx)
        if record is None:  # hidden
            continue
        names, text = record
        rows.append(f"- `{names}` — {_escape(text)}" if text else f"- `{names}`")
    return rows


def render_command(ctx: click.Context, command: click.Command) -> str:
    """One command's section: heading, usage, help, subcommands, options."""
    parts = [f"## {ctx.command_path}", f"```text\n{usage(ctx, command)}\n```"]
    if command.help:
        parts.append(help_markdown(command.help))
    if isinstance(command, click.Group) and ctx.parent is not None:  # the root: the index
        subs = [f"- [{ctx.command_path} {name}](#{anchor(f'{ctx.command_path} {name}')})"
                f" — {_escape(sub.get_short_help_str(limit=200))}"
                for name, sub in command.commands.items() if not sub.hidden]
        if subs:
            parts.append("Subcommands:\n\n" + "\n".join(subs))
    options = _options(ctx, command)
    if options:
        parts.append("Options:\n\n" + "\n".join(options))
    return "\n\n".join(parts)


def render_reference() -> str:
    """The whole reference: an index of the commands, then one section per command."""
    found = list(commands())
    index = [f"- [{ctx.command_path}](#{anchor(ctx.command_path)})"
             + (f" — {_escape(cmd.get_short_help_str(limit=200))}" if ctx.parent else "")
             for ctx, cmd in found]
    sections = [render_command(ctx, cmd) for ctx, cmd in found]
    return "\n\n".join(["\n".join(index), *sections]) + "\n"


# -- the settings tree ------------------------------------------------------------------


def _default(setting) -> str:
    """A setting's default as the settings file writes it (TOML), or as its help shows
    it: the text docs/settings.md shows too."""
    from afr.settings import default_text

    return default_text(setting)


def _table(path: str) -> str:
    """The settings-file table of a setting path (``llm.steps.rerank.model`` →
    ``llm.steps.rerank``)."""
    return path.rsplit(".", 1)[0]


def _sections() -> list[tuple[str, str, list]]:
    """(table, what it sets, its settings) for every table of the settings file, in the
    tree's order."""
    import dataclasses

    from afr.settings import Settings, leaves

    docs = {}

    def walk(tree: type, prefix: str) -> None:
        for f in dataclasses.fields(tree):
            if f.metadata.get("knob") is None:  # a section
                inner = f.default_factory()  # type: ignore[misc]
                docs[prefix + f.name] = inspect.cleandoc(type(inner).__doc__ or "")
                walk(type(inner), f"{prefix}{f.name}.")

    walk(Settings, "")
    out: dict[str, list] = {}
    for setting in leaves(Settings):
        out.setdefault(_table(setting.path), []).append(setting)
    return [(table, _what(docs.get(table, "")), found) for table, found in out.items()]


def _what(doc: str) -> str:
    """A section's docstring without its leading ``[table]``, on one line."""
    text = " ".join(doc.split())
    return re.sub(r"^\[[\w.]+\]\s*", "", text)


def _step_flag(path: str) -> str:
    """The option that sets one LLM step's model or effort (``--effort rerank=LEVEL``)."""
    from .options import STEP_EFFORT, STEP_MODEL

    parts = path.split(".")
    if parts[:2] != ["llm", "steps"]:
        return ""
    flag, metavar = (STEP_MODEL, "MODEL") if parts[-1] == "model" else (STEP_EFFORT, "LEVEL")
    return f"`{flag} {parts[2]}={metavar}`"


def render_settings() -> str:
    """Every setting: its path (the settings file's table and key), default, command-line
    flag, environment variables and help."""
    rows = ["| setting | default | flag | environment | help |", "|---|---|---|---|---|"]
    for table, what, found in _sections():
        rows.append(f"| **[{table}]** | | | | {_escape(what)} |")
        for s in found:
            k = s.knob
            flags = " ".join(f"`{f}`" for f in (k.short, k.flag, k.off_flag) if f) \
                or _step_flag(s.path)
            env = " ".join(f"`{e}`" for e in k.env)
            notes = []
            if s.choices:
                notes.append("one of " + ", ".join(f"`{c}`" for c in s.choices))
            if k.minimum is not None or k.maximum is not None:
                lo = "" if k.minimum is None else f"{k.minimum:g} ≤ "
                hi = "" if k.maximum is None else f" ≤ {k.maximum:g}"
                notes.append(f"{lo}x{hi}")
            if not k.in_file:
                notes.append("not in the settings file")
            if k.secret:
                notes.append("secret: never stored or printed")
            elif not k.stored:
                notes.append("not stored with runs")
            text = _escape(k.help) + (f" ({'; '.join(notes)})" if notes else "")
            rows.append(f"| `{s.path}` | `{_default(s)}` | {flags} | {env} | "
                        + text.replace("|", "\\|") + " |")
    return "\n".join(rows) + "\n"


def render_settings_sections() -> str:
    """The settings file's tables, what each sets and its keys with their defaults."""
    rows = ["| table | sets | keys (default) |", "|---|---|---|"]
    for table, what, found in _sections():
        keys = ", ".join(f"`{s.name}` {_default(s)}" for s in found if s.knob.in_file)
        rows.append(f"| `[{table}]` | {_escape(what)} | {keys} |")
    return "\n".join(rows) + "\n"
