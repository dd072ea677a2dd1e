"""The settings file: where it is, and its tables read as dotted setting paths.

Looked up in this order, the first that exists wins: ``$AFR_CONFIG``, ``./afr.toml``,
``$XDG_CONFIG_HOME/afr/config.toml`` (else ``~/.config/afr/config.toml``). Its tables are
the sections of the settings tree (``[af]``, ``[llm]``, ``[llm.steps.rerank]`` …); an
unknown table or key, or a value of the wrong type, is a one-line error naming the file.
"""

from __future__ import annotations

import tomllib
from collections.abc import Mapping
from functools import lru_cache
from pathlib import Path
from typing import Any

from afr.errors import AfrError

# Keys of earlier versions, and where they went.
MOVED = {"ranking.k1": "bm25.k1", "ranking.b": "bm25.b", "ranking.stopwords": "bm25.stopwords",
         "ranking.min_idf": "bm25.min_idf"}
REMOVED = {"ranking.offline_trust": "it was never read; the offline formalizer's confidence "
           "weighs its Cypher"}


class SettingsError(AfrError):
    """A setting that cannot be used (a broken file, a bad variable or flag): a usage
    error."""

    exit_code = 2


def config_path(environ: Mapping[str, str]) -> Path | None:
    """The settings file in use, or None when there is none."""
    env = environ.get("AFR_CONFIG")
    if env:
        path = Path(env).expanduser()
        if not path.is_file():
            raise SettingsError(f"AFR_CONFIG points to {path}, which is not a file")
        return path
    local = Path("afr.toml")
    if local.is_file():
        return local
    xdg = environ.get("XDG_CONFIG_HOME")
    base = Path(xdg).expanduser() if xdg else Path.home() / ".config"
    user = base / "afr" / "config.toml"
    return user if user.is_file() else None


@lru_cache(maxsize=8)
def _parse(path: str, mtime: float) -> dict[str, Any]:
    try:
        with open(path, "rb") as fh:
            return tomllib.load(fh)
    except tomllib.TOMLDecodeError as exc:
        raise SettingsError(f"settings file {path}: {exc}") from None
    except OSError as exc:
        raise SettingsError(f"settings file {path}: cannot read it ({exc.strerror})") from None


def read_file(path: Path) -> dict[str, Any]:
    """The file's values by dotted path (``{"af.l_max": 30}``), tables flattened; which
    paths exist is checked by the resolver."""
    data = _parse(str(path.resolve()), path.stat().st_mtime)
    flat: dict[str, Any] = {}

    def walk(table: Mapping[str, Any], prefix: str) -> None:
        for key, value in table.items():
            dotted = f"{prefix}{key}"
            if isinstance(value, dict):
                walk(value, dotted + ".")
            else:
                flat[dotted] = value

    walk(data, "")
    for old, new in MOVED.items():
        if old in flat:
            raise SettingsError(f"settings file {path}: {old} is now {new} (move it to the "
                                f"[{new.split('.')[0]}] table)")
    for old, why in REMOVED.items():
        if old in flat:
            raise SettingsError(f"settings file {path}: {old} no longer exists ({why}); "
                                "remove it")
    return flat
