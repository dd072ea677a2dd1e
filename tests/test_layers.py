"""The layering contract, checked on the import graph of the source tree.

    cli
    evaluate · demo · synth
    pipeline
    ground (→ cypher) · lexical (→ vectors) · vectors (→ embed)
    cypher · embed · llm · load
    store
    root modules (errors, settings, resources, text, progress, lazy)

Imports only go down, siblings only as listed, nothing in ``afr`` imports the CLI, and no
two modules import each other, directly or around a loop. Imports inside functions
count like any other: a lazy import is for start-up time, never a way around a cycle.
``cli/`` is installed as ``afr.cli``, and is read here under that name.
"""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

ROOT_MODULES = {"errors", "settings", "resources", "text", "progress", "lazy", "__init__",
                "__main__"}

# `python -m afr` starts the command line, like the `afr` script pyproject.toml declares:
# an entry point, so it sits above the CLI rather than in the library's root layer.
ENTRY_POINTS = {"afr.__main__"}

# layer → the layers it may import (besides itself)
ALLOWED: dict[str, set[str]] = {
    "root": set(),
    "store": {"root"},
    "cypher": {"store", "root"},
    "embed": {"store", "root"},
    "llm": {"store", "root"},
    "load": {"store", "root"},
    "ground": {"cypher", "store", "root"},
    "vectors": {"embed", "store", "root"},
    "lexical": {"vectors", "embed", "store", "root"},  # indexes vectors' node documents
    "pipeline": {"ground", "lexical", "vectors", "cypher", "embed", "llm", "store", "root"},
    "evaluate": {"pipeline", "ground", "lexical", "vectors", "cypher", "embed", "llm", "store",
                 "root"},
    "demo": {"load", "lexical", "vectors", "embed", "store", "root"},
    "synth": {"ground", "cypher", "store", "root"},
}
ALLOWED["cli"] = set(ALLOWED) | {"root"}
ALLOWED["main"] = {"cli"}


def _modules() -> dict[str, Path]:
    found = {}
    for base, package in ((ROOT / "afr", "afr"), (ROOT / "cli", "afr.cli")):
        for path in base.rglob("*.py"):
            parts = list(path.relative_to(base).with_suffix("").parts)
            if parts[-1] == "__init__":
                parts = parts[:-1]
            found[".".join([package, *parts])] = path
    return found


def _imports(name: str, path: Path, modules: dict[str, Path]) -> set[str]:
    """The afr modules ``name`` imports (for ``from pkg import x``: pkg.x when that is a
    module, else pkg)."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    out: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            targets = [a.name for a in node.names]
            out.update(t for t in targets if t == "afr" or t.startswith("afr."))
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")
                base = base[:len(base) - (node.level - 1)]
                mod = ".".join(base + ([node.module] if node.module else []))
            else:
                mod = node.module or ""
            if not (mod == "afr" or mod.startswith("afr.")):
                continue
            for alias in node.names:
                sub = f"{mod}.{alias.name}"
                out.add(sub if sub in modules else mod)
    out.discard(name)
    return {m for m in out if m in modules}


def _layer(module: str) -> str:
    if module in ENTRY_POINTS:
        return "main"
    parts = module.split(".")
    if len(parts) == 1 or (len(parts) == 2 and parts[1] in ROOT_MODULES):
        return "root"
    return parts[1]


def _graph() -> dict[str, set[str]]:
    modules = _modules()
    return {name: _imports(name, path, modules) for name, path in modules.items()}


def test_every_module_has_a_layer() -> None:
    unknown = sorted({_layer(m) for m in _graph()} - set(ALLOWED))
    assert not unknown, f"packages outside the layering contract: {unknown}"


def test_imports_only_go_down() -> None:
    wrong = []
    for module, imported in _graph().items():
        layer = _layer(module)
        for target in imported:
            other = _layer(target)
            # afr/__init__ is the lazy public API: it names modules of every layer by string
            if other != layer and other not in ALLOWED[layer]:
                wrong.append(f"{module} ({layer}) imports {target} ({other})")
    assert not wrong, "layering broken:\n" + "\n".join(sorted(wrong))


def test_library_never_imports_the_cli() -> None:
    wrong = [f"{m} imports {t}" for m, imported in _graph().items()
             if not m.startswith("afr.cli") and m not in ENTRY_POINTS
             for t in imported if t.startswith("afr.cli")]
    assert not wrong, "\n".join(wrong)


def test_no_import_cycles() -> None:
    graph = _graph()
    # Tarjan's strongly connected components: any component of more than one module is a
    # cycle. A package's __init__ re-exporting its own modules is not a dependency of
    # theirs, so edges from a module to its own package's __init__ are left out.
    def edges(m: str) -> set[str]:
        return {t for t in graph[m] if not m.startswith(t + ".")}

    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    cycles: list[list[str]] = []
    counter = [0]

    def visit(v: str) -> None:
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on_stack.add(v)
        for w in edges(v):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                component.append(w)
                if w == v:
                    break
            if len(component) > 1:
                cycles.append(sorted(component))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    assert not cycles, "import cycles: " + "; ".join(" ↔ ".join(c) for c in cycles)
