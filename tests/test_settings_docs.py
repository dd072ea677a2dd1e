"""Every environment variable and settings key afr reads is documented (issue 23, item 13).

docs/settings.md is generated from the settings tree by cog and must be current; the
variables afr reads are the tree's and ``afr.settings.ENVIRONMENT`` — no code outside
``afr/settings/`` reads the environment, and none inside reads a variable by a name that
is not in that registry. The variables afr's own tests read are documented too.
"""

from __future__ import annotations

import ast
import io
from pathlib import Path

from afr.settings import Settings, leaves
from afr.settings.reference import environment, tables

ROOT = Path(__file__).resolve().parent.parent
DOC = ROOT / "docs" / "settings.md"


def test_the_settings_page_is_current() -> None:
    from cogapp import Cog

    out = io.StringIO()
    cog = Cog()
    cog.set_output(stdout=out, stderr=out)
    status = cog.main(["cog", "--check", "--diff", str(DOC)])
    assert status == 0, "docs/settings.md is out of date: run cog -r docs/settings.md\n" \
        + out.getvalue()[-3000:]


def test_every_key_and_variable_is_on_the_page() -> None:
    text = DOC.read_text(encoding="utf-8")
    missing = [f"[{table}] {s.name}" for table, found in tables().items() for s in found
               if f"### `[{table}]`" not in text or f"| `{s.name}` |" not in text]
    missing += [name for name in environment() if f"`{name}`" not in text]
    assert not missing, f"not in docs/settings.md: {missing}"
    assert len(leaves(Settings)) > 60  # the tree is where this test looks


def environment_reads(path: Path) -> list[tuple[int, str | None]]:
    """(line, variable name or None when not a literal) of each read of the environment
    in a Python file: ``os.environ[...]``, ``os.environ.get(...)``, ``os.getenv(...)``,
    and ``environ.get(...)`` / ``environ[...]`` of a mapping called environ."""
    found = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        target, key = None, None
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
            if node.func.attr in ("get", "pop") and _is_environ(node.func.value) or \
                    node.func.attr == "getenv":
                target, key = node.func, node.args[0] if node.args else None
        elif isinstance(node, ast.Subscript) and _is_environ(node.value):
            target, key = node, node.slice
        if target is not None:
            name = key.value if isinstance(key, ast.Constant) and isinstance(key.value, str) \
                else None
            found.append((node.lineno, name))
    return found


def _is_environ(node: ast.AST) -> bool:
    return isinstance(node, ast.Name) and node.id == "environ" or \
        isinstance(node, ast.Attribute) and node.attr == "environ"


def test_environment_reads_are_registered() -> None:
    """Inside afr/settings/ every variable read by name is a setting's or ENVIRONMENT's;
    outside it, afr and its command line read no environment at all."""
    known = set(environment())
    unknown, outside = [], []
    for path in sorted((ROOT / "afr").rglob("*.py")) + sorted((ROOT / "cli").rglob("*.py")):
        rel = path.relative_to(ROOT).as_posix()
        for line, name in environment_reads(path):
            if not rel.startswith("afr/settings/"):
                outside.append(f"{rel}:{line}")
            elif name is not None and name not in known:
                unknown.append(f"{rel}:{line} {name}")
    assert not outside, f"environment read outside afr/settings/: {outside}"
    assert not unknown, f"variables read but not in the registry: {unknown}"


def test_the_scan_finds_reads() -> None:
    """The scan above can fail: it sees each form of read."""
    sample = ROOT / "tests" / "data" / "env_reads_sample.py"
    reads = environment_reads(sample)
    assert [name for _, name in reads] == ["AFR_ONE", "AFR_TWO", "AFR_THREE", None, "AFR_FOUR"]


def test_the_tests_variables_are_documented() -> None:
    text = DOC.read_text(encoding="utf-8")
    names = {name for path in sorted((ROOT / "tests").glob("*.py"))
             for _, name in environment_reads(path) if name}
    names -= {"PATH", "HOME"}  # the system's, passed on to child processes
    missing = sorted(n for n in names if f"`{n}`" not in text)
    assert not missing, f"variables afr's tests read, not in docs/settings.md: {missing}"
