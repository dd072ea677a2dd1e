"""Lazy package attributes: a package names what it exports and the module each comes
from, and the module is imported on first use (cold start: `afr --help` and `afr sql`
should not import the pipeline or numpy)."""

from __future__ import annotations

import importlib
from collections.abc import Callable, Mapping
from typing import Any


def lazy_exports(package: str, exports: Mapping[str, str]) -> Callable[[str], Any]:
    """A module-level ``__getattr__`` for ``package`` that imports ``exports[name]`` and
    returns its ``name`` when the attribute is first asked for."""
    def __getattr__(name: str) -> Any:
        if name in exports:
            return getattr(importlib.import_module(exports[name]), name)
        raise AttributeError(f"module {package!r} has no attribute {name!r}")

    return __getattr__
