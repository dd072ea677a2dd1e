"""Settings are resolved once, where a command starts, and passed down: nothing below
reads the environment or the settings file (issue 22)."""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SETTINGS = ROOT / "afr" / "settings"
# The entry points that resolve settings: the command line, and the Python API's root and
# its one-shot ``afr.ask`` (afr/pipeline/ask.py).
ENTRY_POINTS = (ROOT / "cli", ROOT / "afr" / "__init__.py", ROOT / "afr" / "pipeline" / "ask.py")
RESOLVERS = {"resolve_settings", "config_path", "read_file", "debug_enabled"}


def _sources() -> list[Path]:
    return sorted(list((ROOT / "afr").rglob("*.py")) + list((ROOT / "cli").rglob("*.py")))


def _inside(path: Path, *places: Path) -> bool:
    return any(path == p or p in path.parents for p in places)


def environment_reads(code: str) -> list[int]:
    """Lines of ``code`` that read the process environment (``os.environ``, ``os.getenv``,
    ``from os import environ``)."""
    lines = []
    for node in ast.walk(ast.parse(code)):
        if isinstance(node, ast.Attribute) and node.attr in ("environ", "getenv") \
                and isinstance(node.value, ast.Name) and node.value.id == "os":
            lines.append(node.lineno)
        if isinstance(node, ast.ImportFrom) and node.module == "os" and any(
                a.name in ("environ", "getenv") for a in node.names):
            lines.append(node.lineno)
    return lines


def resolver_uses(code: str) -> list[int]:
    """Lines of ``code`` that import or call a settings resolver."""
    lines = []
    for node in ast.walk(ast.parse(code)):
        names = [a.name for a in node.names] if isinstance(node, ast.ImportFrom) else \
            [node.attr] if isinstance(node, ast.Attribute) else []
        lines += [node.lineno for n in names if n in RESOLVERS]
    return lines


def test_only_the_settings_package_reads_the_environment() -> None:
    offenders = [f"{p.relative_to(ROOT)}:{line}" for p in _sources()
                 if not _inside(p, SETTINGS)
                 for line in environment_reads(p.read_text(encoding="utf-8"))]
    assert offenders == []


def test_only_entry_points_resolve_settings() -> None:
    offenders = [f"{p.relative_to(ROOT)}:{line}" for p in _sources()
                 if not _inside(p, SETTINGS, *ENTRY_POINTS)
                 for line in resolver_uses(p.read_text(encoding="utf-8"))]
    assert offenders == []


def test_the_checks_see_what_they_look_for() -> None:
    """The scans find a read of the environment and a resolver call below the entry
    points, written the ways code writes them."""
    assert environment_reads("import os\nx = os.environ.get('AFR_X')\n") == [2]
    assert environment_reads("import os\nx = os.getenv('AFR_X')\n") == [2]
    assert environment_reads("from os import environ\n") == [1]
    assert resolver_uses("from afr.settings import resolve_settings\n") == [1]
    assert resolver_uses("import afr.settings\nafr.settings.resolve_settings()\n") == [2]
