"""Where afr finds the files it ships: SQL templates, DDL, prompts, the demo SKB. (The
user's cache folder is a setting, ``store.cache_dir``.)

``sql/`` and ``schema/`` sit at the top of the source tree but are installed as the
packages ``afr.sql`` and ``afr.schema`` (see pyproject.toml), so the same lookup works
from an editable install and a wheel; a plain checkout on ``sys.path`` falls back to
the source tree.
"""

from __future__ import annotations

import shlex
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


def install_command(extra: str) -> str:
    """The pip command that adds the optional extra ``extra`` to this afr: by path when
    afr runs from a source tree (``pip install -e '/src[st]'``, ``-e '.[st]'`` from inside
    it) or was installed from one, where the name on a package index may be another
    project's; by name for an install from an index (``pip install 'afr[st]'``)."""
    if (_SOURCE_ROOT / "pyproject.toml").is_file():  # editable, or a checkout on sys.path
        source, editable = _SOURCE_ROOT, True
    else:
        source, editable = _installed_from_folder(), False
    if source is None:
        return f"pip install {shlex.quote(f'afr[{extra}]')}"
    where = "." if source == Path.cwd().resolve() else str(source)
    return f"pip install {'-e ' if editable else ''}{shlex.quote(f'{where}[{extra}]')}"


def _installed_from_folder() -> Path | None:
    """The folder a (non-editable) install of afr was made from, as pip recorded it; None
    for an install from a package index, a wheel file or an archive."""
    import json
    from importlib import metadata
    from urllib.parse import unquote, urlparse

    try:
        direct = metadata.distribution("afr").read_text("direct_url.json")
    except metadata.PackageNotFoundError:
        return None
    url = urlparse(json.loads(direct).get("url", "")) if direct else None
    path = Path(unquote(url.path)) if url is not None and url.scheme == "file" else None
    return path.resolve() if path is not None and path.is_dir() else None
