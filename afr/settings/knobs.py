"""What a setting is: a dataclass field with a default and a ``Knob`` describing it.

Every setting of afr is one field of one frozen section dataclass (``afr.settings.tree``).
Its default, help text, command-line flag, environment variable, bounds and whether a
run stores it live in that one field, and the command line, the settings file, the
resolver and ``afr config`` are all generated from it.
"""

from __future__ import annotations

import dataclasses
import types
import typing
from dataclasses import dataclass, field
from functools import cache
from typing import Any, Literal, get_args, get_origin


@dataclass(frozen=True)
class Knob:
    """How one setting is described and set (besides its default)."""

    help: str
    flag: str | None = None  # its command-line flag, e.g. "--l-max"
    flag_value: Any = None  # a switch's value when given (``--no-fix`` sets False)
    off_flag: str | None = None  # the switch's other side (``--no-repair``)
    short: str | None = None  # a one-letter flag, e.g. "-k"
    metavar: str | None = None
    env: tuple[str, ...] = ()  # environment variables, the first that is set wins
    minimum: float | None = None
    maximum: float | None = None
    secret: bool = False  # never stored, never printed (API keys)
    stored: bool = True  # kept with every run (False: where, not how: paths, URLs)
    in_file: bool = True  # may be set in the settings file
    url: bool = False  # an http(s):// URL
    shown: str | None = None  # the default as help shows it (alpha: "2/3")
    directory: bool = False  # an existing folder (the command line checks it)


def knob(default: Any, help: str, **described: Any) -> Any:  # noqa: A002 - click's word
    """A settings field: ``default`` and its ``Knob``."""
    return field(default=default, metadata={"knob": Knob(help, **described)})


def section(factory: type) -> Any:
    """A field holding a whole section (its defaults)."""
    return field(default_factory=factory)


@dataclass(frozen=True)
class Setting:
    """One leaf of the tree, as the resolver and the command line see it."""

    path: str  # "af.l_max"
    name: str
    default: Any
    kind: type  # int, float, bool or str (of each item, when ``many``)
    optional: bool  # None is a value
    choices: tuple[str, ...] | None
    knob: Knob
    many: bool = False  # a tuple of such values (``tuple[str, ...]``)


def _leaf_type(annotation: Any) -> tuple[type, bool, tuple[str, ...] | None]:
    """(base type, None allowed, choices) of a field's annotation (of its items, for a
    ``tuple[X, ...]``: ``_many``)."""
    if _many(annotation):
        return _leaf_type(get_args(annotation)[0])
    optional = False
    args = get_args(annotation)
    if get_origin(annotation) in (typing.Union, types.UnionType) and type(None) in args:
        optional = True
        rest = [a for a in args if a is not type(None)]
        annotation = rest[0] if len(rest) == 1 else annotation
    if get_origin(annotation) is Literal:
        return str, optional, tuple(str(a) for a in get_args(annotation))
    if annotation in (int, float, bool, str):
        return annotation, optional, None
    raise TypeError(f"unsupported settings type {annotation!r}")


def _many(annotation: Any) -> bool:
    """Whether a field holds any number of values: ``tuple[X, ...]``."""
    args = get_args(annotation)
    return get_origin(annotation) is tuple and len(args) == 2 and args[1] is Ellipsis


@cache
def leaves(tree: type) -> tuple[Setting, ...]:
    """Every setting under the dataclass ``tree``, depth first, in field order; each
    default read off a default tree (a section may set its own: the rerank step's
    effort is "low", the field's "medium")."""
    return tuple(_leaves(tree, tree(), ""))


def _leaves(tree: type, defaults: Any, prefix: str) -> list[Setting]:
    out: list[Setting] = []
    hints = typing.get_type_hints(tree)
    for f in dataclasses.fields(tree):
        path = f"{prefix}{f.name}"
        annotation = hints[f.name]
        default = getattr(defaults, f.name)
        if dataclasses.is_dataclass(annotation):
            out += _leaves(annotation, default, path + ".")
            continue
        kind, optional, choices = _leaf_type(annotation)
        out.append(Setting(path, f.name, default, kind, optional, choices,
                           f.metadata["knob"], _many(annotation)))
    return out


def by_path(tree: type) -> dict[str, Setting]:
    return {s.path: s for s in leaves(tree)}
