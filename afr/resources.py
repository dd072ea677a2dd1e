"""Where afr finds the files it ships: SQL templates, DDL, prompts, the demo SKB. (The
user's cache folder is a setting, ``store.cache_dir``.)

``sql/`` and ``schema/`` sit at the top of the source tree but are installed as the
packages ``afr.sql`` and ``afr.schema`` (see pyproject.toml), so the same lookup works
from an editable install and a wheel; a plain checkout on ``sys.path`` falls back to
the source tree.
"""

from __future__ import annotations

from importlib import resources
from pathlib import Path

_SOURCE_ROOT = Path(__file__).resolve().parent.parent


def _package_dir(package: str, fallback: str) -> Path:
    try:
        return Path(str(resources.files(package)))
    except ModuleNotFoundError:
        return _SOURCE_ROOT / fallback


def sql_dir() -> Path:
    return _package_dir("afr.sql", "sql")


def schema_dir() -> Path:
    return _package_dir("afr.schema", "schema")


def data_dir() -> Path:
    return Path(__file__).resolve().parent / "data"


def demo_skb_dir() -> Path:
    return data_dir() / "demo"


def prompts_dir() -> Path:
    return Path(__file__).resolve().parent / "prompts"
