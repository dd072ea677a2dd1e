"""Resolving the settings tree: flags > environment > settings file > preset > defaults.

``resolve_settings`` is called once, where a command starts (the CLI, ``afr.ask``, a bench
script), and its ``Settings`` are passed down: nothing below reads the environment or the
file. Every value keeps where it came from (``Resolved.sources``), which ``afr config``
prints. A stored run's settings beat all four (``with_stored``): a resumed evaluation asks
exactly as it first did, whatever the file or the environment say now; only what a run
never stores (API keys, the store's location) comes from them.
"""

from __future__ import annotations

import dataclasses
import os
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from afr.settings import legacy
from afr.settings.files import SettingsError, config_path, read_file
from afr.settings.knobs import Setting, by_path, leaves
from afr.settings.presets import preset_values
from afr.settings.tree import LLM_STEPS, Settings

DEFAULT = "default"


@dataclass(frozen=True)
class Resolved:
    """The settings in force, and where each value came from (path → source)."""

    settings: Settings
    sources: Mapping[str, str]
    file: Path | None = None


def resolve_settings(flags: Mapping[str, Any] | None = None, *,
                     environ: Mapping[str, str] | None = None, use_file: bool = True
                     ) -> Resolved:
    """The settings tree from ``flags`` (dotted path → value, only what the user gave),
    the environment, the settings file, the preset those name (``ask.preset``:
    ``afr.settings.presets``) and the defaults."""
    environ = os.environ if environ is None else environ
    known = by_path(Settings)
    values: dict[str, Any] = {}
    sources: dict[str, str] = {}
    path = config_path(environ) if use_file else None
    from_file = _from_file(path, known, environ) if path is not None else {}
    from_env = _from_environment(known, environ)
    for p in flags or {}:
        if p not in known:
            raise SettingsError(f"no setting {p!r}")
    from_flags = {p: (_check(known, p, v, f"flag {_flag(known, p)}"), f"flag {_flag(known, p)}")
                  for p, v in (flags or {}).items()}
    preset = next((layer["ask.preset"][0] for layer in (from_flags, from_env, from_file)
                   if "ask.preset" in layer), None)
    if preset is not None:
        _take(values, sources, {p: (_check(known, p, v, f"preset {preset}"), None)
                                for p, v in preset_values(preset).items()}, f"preset {preset}")
    _take(values, sources, from_file, f"file {path}")
    _take(values, sources, from_env, None)
    _take(values, sources, from_flags, None)
    if "store.cache_dir" not in values:  # a default that depends on the environment
        xdg = environ.get("XDG_CACHE_HOME")
        base = Path(xdg).expanduser() if xdg else Path.home() / ".cache"
        values["store.cache_dir"] = str(base / "afr")
    for p in known:
        sources.setdefault(p, DEFAULT)
    return Resolved(build(Settings, values), sources, path)


def _take(values: dict[str, Any], sources: dict[str, str],
          layer: Mapping[str, tuple[Any, str | None]], source: str | None) -> None:
    for p, (value, own) in layer.items():
        values[p] = value
        sources[p] = own or source or DEFAULT


def _flag(known: Mapping[str, Setting], path: str) -> str:
    k = known[path].knob
    return k.flag or k.short or path


def _from_file(path: Path, known: Mapping[str, Setting], environ: Mapping[str, str]
               ) -> dict[str, tuple[Any, str | None]]:
    out: dict[str, tuple[Any, str | None]] = {}
    for dotted, value in read_file(path).items():
        setting = known.get(dotted)
        if setting is None or not setting.knob.in_file:
            section = dotted.rsplit(".", 1)[0]
            keys = [s.name for s in known.values() if s.path.rsplit(".", 1)[0] == section
                    and s.knob.in_file]
            if not keys and section.startswith("llm.steps."):
                raise SettingsError(f"settings file {path}: unknown step [{section}] "
                                    f"(steps: {', '.join(LLM_STEPS)})")
            if not keys:
                raise SettingsError(f"settings file {path}: unknown section [{section}] "
                                    f"(known: {', '.join(sections())})")
            raise SettingsError(f"settings file {path}: unknown key {dotted} (known in "
                                f"[{section}]: {', '.join(keys)})")
        out[dotted] = (_check(known, dotted, value, f"settings file {path}"), None)
    key_env = out.get("llm.api_key_env")
    if key_env and "llm.api_key" not in out and environ.get(key_env[0]):
        out["llm.api_key"] = (environ[key_env[0]], f"env {key_env[0]} (llm.api_key_env)")
    return out


def _from_environment(known: Mapping[str, Setting], environ: Mapping[str, str]
                      ) -> dict[str, tuple[Any, str | None]]:
    out: dict[str, tuple[Any, str | None]] = {}
    for setting in known.values():
        for name in setting.knob.env:
            text = environ.get(name)
            if text:
                out[setting.path] = (_check(known, setting.path, _parse(setting, text, name),
                                            name), f"env {name}")
                break
    return out


def _parse(setting: Setting, text: str, name: str) -> Any:
    """An environment variable's text as the setting's type (comma-separated items for a
    setting of many values)."""
    if setting.many:
        one = dataclasses.replace(setting, many=False)
        return tuple(_parse(one, item, name) for item in text.split(",") if item.strip())
    try:
        if setting.kind is bool:
            lowered = text.strip().lower()
            if lowered not in ("1", "0", "true", "false", "yes", "no", "on", "off"):
                raise ValueError
            return lowered in ("1", "true", "yes", "on")
        return setting.kind(text.strip()) if setting.kind is not str else text
    except ValueError:
        what = {int: "a whole number", float: "a number", bool: "true or false"}[setting.kind]
        raise SettingsError(f"{name} must be {what}, not {text!r}") from None


def _check(known: Mapping[str, Setting], path: str, value: Any, where: str) -> Any:
    """``value`` as the setting ``path`` takes it, or a one-line error naming ``where``."""
    s = known[path]
    if value is None and s.optional:
        return None
    if s.many:
        if not isinstance(value, list | tuple):
            raise SettingsError(f"{_label(where, path)} has the wrong type (want a list of "
                                f"{s.kind.__name__})")
        one = {**known, path: dataclasses.replace(s, many=False)}
        return tuple(_check(one, path, item, where) for item in value)
    kind = s.kind
    ok = isinstance(value, kind) and (kind is bool or not isinstance(value, bool))
    if kind is float and isinstance(value, int) and not isinstance(value, bool):
        value, ok = float(value), True
    label = _label(where, path)
    if not ok:
        raise SettingsError(f"{label} has the wrong type (want {kind.__name__})")
    if s.choices is not None and value not in s.choices:
        raise SettingsError(f"{label} must be one of {', '.join(s.choices)}, not {value!r}")
    if s.knob.minimum is not None and value < s.knob.minimum or \
            s.knob.maximum is not None and value > s.knob.maximum:
        bounds = _bounds(s)
        raise SettingsError(f"{label} must be {bounds}, not {value!r}")
    if s.knob.url and not str(value).startswith(("http://", "https://")):
        raise SettingsError(f"{label} must be an http:// or https:// URL, not {value!r}")
    return value


def _label(where: str, path: str) -> str:
    return where if where.startswith(("flag", "AFR_", "OPENAI_", "the stored")) or \
        where.isupper() else f"{where}: {path}"


def _bounds(s: Setting) -> str:
    lo, hi = s.knob.minimum, s.knob.maximum
    if lo is not None and hi is not None:
        return f"between {lo:g} and {hi:g}"
    return f"at least {lo:g}" if lo is not None else f"at most {hi:g}"


def build(tree: type, values: Mapping[str, Any], prefix: str = "") -> Any:
    """The dataclass ``tree`` with the given dotted ``values`` over its defaults."""
    kwargs: dict[str, Any] = {}
    for f in dataclasses.fields(tree):
        path = f"{prefix}{f.name}"
        if f.metadata.get("knob") is None:  # a section
            default = f.default_factory()  # type: ignore[misc]
            inner = {p: v for p, v in values.items() if p.startswith(path + ".")}
            if inner:
                kwargs[f.name] = _overlay(default, inner, path + ".")
        elif path in values:
            kwargs[f.name] = values[path]
    return tree(**kwargs)


def _overlay(default: Any, values: Mapping[str, Any], prefix: str) -> Any:
    changes: dict[str, Any] = {}
    for f in dataclasses.fields(default):
        path = f"{prefix}{f.name}"
        if f.metadata.get("knob") is None:
            inner = {p: v for p, v in values.items() if p.startswith(path + ".")}
            if inner:
                changes[f.name] = _overlay(getattr(default, f.name), inner, path + ".")
        elif path in values:
            changes[f.name] = values[path]
    return dataclasses.replace(default, **changes)


def with_values(settings: Settings, values: Mapping[str, Any]) -> Settings:
    """``settings`` with some values changed, by dotted path (checked like flags)."""
    known = by_path(Settings)
    for p in values:
        if p not in known:
            raise SettingsError(f"no setting {p!r}")
    return _overlay(settings, {p: _check(known, p, v, f"setting {p}")
                               for p, v in values.items()}, "")


def sections() -> list[str]:
    return [f.name for f in dataclasses.fields(Settings)]


def to_dict(settings: Settings) -> dict[str, Any]:
    """What a run stores: every stored, non-secret setting, nested by section."""
    out: dict[str, Any] = {}
    for s in leaves(Settings):
        if not s.knob.stored or s.knob.secret:
            continue
        value: Any = settings
        for part in s.path.split("."):
            value = getattr(value, part)
        node = out
        *parents, last = s.path.split(".")
        for part in parents:
            node = node.setdefault(part, {})
        node[last] = list(value) if s.many else value  # as JSON keeps it
    return out


def flatten(nested: Mapping[str, Any], prefix: str = "") -> dict[str, Any]:
    """A nested settings dict (``to_dict``) by dotted path."""
    out: dict[str, Any] = {}
    for key, value in nested.items():
        if isinstance(value, Mapping):
            out.update(flatten(value, f"{prefix}{key}."))
        else:
            out[f"{prefix}{key}"] = value
    return out


def value_at(settings: Settings, path: str) -> Any:
    value: Any = settings
    for part in path.split("."):
        value = getattr(value, part)
    return value


def stored_tree(stored: Mapping[str, Any]) -> dict[str, Any]:
    """A run's stored settings as a nested tree (``to_dict``), whatever afr stored them:
    a flat ``AskConfig`` dict of before the tree (``afr.settings.legacy``) becomes the
    tree it meant, today's defaults filling what it did not store."""
    if legacy.is_legacy(stored):
        return to_dict(build(Settings, legacy.from_legacy(stored)))
    return dict(stored)


def with_stored(settings: Settings, stored: Mapping[str, Any]) -> Settings:
    """``settings`` under a stored run's values, for every setting a run stores: a resumed
    run asks as it first did; what a run never stores (API keys, the store's location)
    stays as resolved now."""
    known = by_path(Settings)
    flat = flatten(stored_tree(stored))
    usable = {p: _check(known, p, v, "the stored run") for p, v in flat.items()
              if p in known and known[p].knob.stored and not known[p].knob.secret}
    return _overlay(settings, usable, "")


def differences(a: Mapping[str, Any], b: Mapping[str, Any]) -> list[tuple[str, Any, Any]]:
    """(path, a's value, b's value) for every setting two stored runs do not share; a
    path one of them lacks (stored by another afr version) shows as None."""
    fa, fb = flatten(a), flatten(b)
    return [(p, fa.get(p), fb.get(p)) for p in sorted(set(fa) | set(fb))
            if fa.get(p) != fb.get(p)]
