"""The settings reference (docs/settings.md), written from the settings tree.

Every setting is a field of ``afr.settings.tree`` with its default, help, flag and
environment variables (``afr.settings.knobs``); the variables that are not settings are
``ENVIRONMENT``. ``render_environment`` and ``render_sections`` print them as
Markdown; docs/settings.md keeps their output between cog markers (``cog -r
docs/settings.md`` regenerates it, and tests/test_settings_docs.py checks it is current).
"""

from __future__ import annotations

import dataclasses
import inspect
import re

from afr.settings.knobs import Setting, leaves
from afr.settings.resolve import value_at
from afr.settings.tree import Settings

# The options that set one LLM step's model and effort (afr.cli.options), and the global
# options that name the store (afr.cli.main): flags the knobs do not carry themselves.
_STEP_FLAGS = {"model": "--step-model STEP=MODEL", "effort": "--effort STEP=LEVEL"}
_GLOBAL_FLAGS = {"store.db": "--db", "store.schema": "--schema"}


# Environment variables that are not settings of the tree (those name their own).
ENVIRONMENT = {
    "AFR_CONFIG": "the settings file (else ./afr.toml, else ~/.config/afr/config.toml)",
    "XDG_CONFIG_HOME": "where the user's settings file is looked for (afr/config.toml)",
    "XDG_CACHE_HOME": "where afr's cache is when AFR_CACHE_DIR is unset (afr/)",
    "AFR_DEBUG": "print the traceback of an internal error",
}

def _cell(text: str) -> str:
    """``text`` for a Markdown table cell: one line, pipes escaped."""
    return " ".join(text.split()).replace("|", "\\|")


def default_text(setting: Setting) -> str:
    """A setting's default as the settings file writes it (TOML), or as its help shows it
    (alpha: 2/3). Read off a default tree: a section may set its own defaults
    (``llm.steps.rerank.effort`` is "low")."""
    if setting.knob.shown:
        return setting.knob.shown
    value = value_at(Settings(), setting.path)
    if value is None:
        return "unset"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, str):
        return f'"{value}"'
    if isinstance(value, float):
        return f"{value:g}"
    return str(value)


def _flag(setting: Setting) -> str:
    k = setting.knob
    flags = [f for f in (k.short, k.flag, k.off_flag) if f]
    if not flags and setting.path.startswith("llm.steps."):
        flags = [_STEP_FLAGS[setting.name]]
    if setting.path in _GLOBAL_FLAGS:
        flags = [_GLOBAL_FLAGS[setting.path]]
    return " ".join(f"`{f}`" for f in flags)


def _notes(setting: Setting) -> str:
    k = setting.knob
    notes = []
    if setting.choices:
        notes.append("one of " + ", ".join(f"`{c}`" for c in setting.choices))
    if k.minimum is not None and k.maximum is not None:
        notes.append(f"{k.minimum:g} to {k.maximum:g}")
    elif k.minimum is not None:
        notes.append(f"at least {k.minimum:g}")
    elif k.maximum is not None:
        notes.append(f"at most {k.maximum:g}")
    if k.url:
        notes.append("an http(s):// URL")
    if not k.in_file:
        notes.append("not in the settings file")
    if k.secret:
        notes.append("secret: never stored with runs, never printed")
    elif not k.stored:
        notes.append("not stored with runs")
    return f" ({'; '.join(notes)})" if notes else ""


def _section_docs() -> dict[str, str]:
    """Each table's path (``llm.steps.rerank``) → its section's docstring, one line,
    without the leading ``[table]``."""
    docs: dict[str, str] = {}

    def walk(tree: type, prefix: str) -> None:
        for f in dataclasses.fields(tree):
            if f.metadata.get("knob") is None:  # a section
                section = type(f.default_factory())  # type: ignore[misc]
                doc = " ".join(inspect.cleandoc(section.__doc__ or "").split())
                docs[prefix + f.name] = re.sub(r"^\[[\w.]+\]\s*", "", doc)
                walk(section, f"{prefix}{f.name}.")

    walk(Settings, "")
    return docs


def tables() -> dict[str, list[Setting]]:
    """The settings file's tables in the tree's order: table → its settings."""
    out: dict[str, list[Setting]] = {}
    for setting in leaves(Settings):
        out.setdefault(setting.path.rsplit(".", 1)[0], []).append(setting)
    return out


def render_sections() -> str:
    """One Markdown section per table of the settings file: each key's default, flag,
    environment variables and help."""
    docs = _section_docs()
    parts = []
    for table, settings in tables().items():
        rows = [f"### `[{table}]`", "", docs.get(table, ""), "",
                "| key | default | flag | environment | what it sets |", "|---|---|---|---|---|"]
        for s in settings:
            env = " ".join(f"`{e}`" for e in s.knob.env)
            rows.append(f"| `{s.name}` | `{default_text(s)}` | {_flag(s)} | {env} | "
                        f"{_cell(s.knob.help + _notes(s))} |")
        parts.append("\n".join(rows))
    return "\n\n".join(parts) + "\n"


def environment() -> dict[str, str]:
    """Every environment variable afr reads → what it sets: the settings' (a setting's
    path) and ``ENVIRONMENT``'s."""
    found: dict[str, str] = {}
    for s in leaves(Settings):
        for i, name in enumerate(s.knob.env):
            later = " (when the variables before it are unset)" if i else ""
            found[name] = f"the setting `{s.path}`{later}: {s.knob.help}"
    found.update(ENVIRONMENT)
    return found


def render_environment() -> str:
    """A Markdown table of every environment variable afr reads."""
    rows = ["| variable | what it sets |", "|---|---|"]
    rows += [f"| `{name}` | {_cell(text)} |" for name, text in environment().items()]
    return "\n".join(rows) + "\n"
