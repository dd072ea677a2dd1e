"""Default locations: the user's cache (demo store) and the default store file."""

from __future__ import annotations

import os
from pathlib import Path


def cache_dir() -> Path:
    """$AFR_CACHE_DIR, else $XDG_CACHE_HOME/afr, else ~/.cache/afr."""
    env = os.environ.get("AFR_CACHE_DIR")
    if env:
        return Path(env).expanduser()
    xdg = os.environ.get("XDG_CACHE_HOME")
    base = Path(xdg).expanduser() if xdg else Path.home() / ".cache"
    return base / "afr"


def demo_store_path() -> Path:
    return cache_dir() / "demo.duckdb"
