"""The import graph of a copy of afr's source tree, as the layer tests check it.

``source_copy`` copies ``afr/`` (with ``cli/`` at ``afr/cli``, as a wheel installs it) and
writes every dynamic import out as a static one (``importlib.import_module("x")`` and the
targets of ``lazy_exports``), so a lazy export cannot hide a dependency. ``lint`` runs
import-linter's contracts (pyproject.toml) on it; ``cycles`` finds every import cycle,
package ``__init__`` modules included (run as a script: ``python import_graph.py``, with
the copy first on ``PYTHONPATH``).
"""

from __future__ import annotations

import ast
import os
import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
MARK = "# afr-test: a dynamic import, written out"


def _dynamic_targets(tree: ast.Module) -> list[str]:
    """Modules a file imports by name at run time: ``importlib.import_module("x")`` and the
    values of a ``lazy_exports(package, {...})`` mapping (a literal or a module-level
    name)."""
    assigned = {t.id: node.value for node in tree.body if isinstance(node, ast.Assign)
                for t in node.targets if isinstance(t, ast.Name)}
    found: list[str] = []
    for node in ast.walk(tree):
        if not isinstance(node, ast.Call):
            continue
        name = node.func.attr if isinstance(node.func, ast.Attribute) else \
            node.func.id if isinstance(node.func, ast.Name) else ""
        if name == "import_module" and node.args and isinstance(node.args[0], ast.Constant):
            found.append(str(node.args[0].value))
        if name == "lazy_exports" and len(node.args) == 2:
            mapping = node.args[1]
            if isinstance(mapping, ast.Name):
                mapping = assigned.get(mapping.id, mapping)
            if isinstance(mapping, ast.Dict):
                found += [str(v.value) for v in mapping.values if isinstance(v, ast.Constant)]
    return found


def source_copy(dest: Path) -> Path:
    """A copy of the source tree under ``dest`` (returned: the folder to put on the path),
    with dynamic imports written out."""
    shutil.copytree(ROOT / "afr", dest / "afr",
                    ignore=shutil.ignore_patterns("__pycache__", "data", "prompts"))
    shutil.copytree(ROOT / "cli", dest / "afr" / "cli",
                    ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copy(ROOT / "pyproject.toml", dest / "pyproject.toml")
    for path in (dest / "afr").rglob("*.py"):
        write_out_dynamic_imports(path)
    return dest


def write_out_dynamic_imports(path: Path) -> None:
    text = path.read_text(encoding="utf-8")
    targets = _dynamic_targets(ast.parse(text))
    if targets:
        path.write_text(text + "".join(f"\nimport {t}  {MARK}" for t in targets) + "\n",
                        encoding="utf-8")


def _env(copy: Path) -> dict[str, str]:
    return {**os.environ, "PYTHONPATH": f"{copy}{os.pathsep}{Path(__file__).parent}"}


def lint(copy: Path) -> subprocess.CompletedProcess:
    """import-linter's contracts on the copy (the exit code says whether all held)."""
    exe = Path(sys.executable).with_name("lint-imports")
    return subprocess.run([str(exe), "--no-cache", "pyproject.toml"], cwd=copy, env=_env(copy),
                          capture_output=True, text=True, timeout=300)


def cycles_of(copy: Path) -> subprocess.CompletedProcess:
    """This file as a script on the copy: it prints each import cycle, one per line."""
    return subprocess.run([sys.executable, __file__], cwd=copy, env=_env(copy),
                          capture_output=True, text=True, timeout=300)


def _cycles() -> list[list[str]]:
    """Strongly connected sets of modules (more than one), package ``__init__`` modules
    and imports inside functions included."""
    import grimp

    graph = grimp.build_graph("afr", cache_dir=None)
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []
    counter = 0

    def visit(start: str) -> None:  # Tarjan's algorithm, iterative
        nonlocal counter
        work = [(start, iter(sorted(graph.find_modules_directly_imported_by(start))))]
        index[start] = low[start] = counter
        counter += 1
        stack.append(start)
        on_stack.add(start)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in index:
                    index[child] = low[child] = counter
                    counter += 1
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(
                        graph.find_modules_directly_imported_by(child)))))
                elif child in on_stack:
                    low[node] = min(low[node], index[child])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                group = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    group.append(member)
                    if member == node:
                        break
                if len(group) > 1:
                    found.append(sorted(group))

    for module in sorted(graph.modules):
        if module not in index:
            visit(module)
    return found


if __name__ == "__main__":
    for group in _cycles():
        print(" ↔ ".join(group))
