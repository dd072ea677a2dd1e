"""The layering contract (pyproject.toml's [tool.importlinter], docs/architecture.md),
checked by import-linter on the import graph — and shown to fail on injected violations.

    cli
    evaluate · demo · synth
    pipeline
    methods (registry · af_sage · af | plain | kar | sage · base)
    retrieval
    ground · lexical
    vectors
    cypher · embed · llm · load
    store
    settings
    root modules (errors, resources, text, progress, lazy, api_failures)

Imports go only downwards; siblings marked ``|`` in the contract do not import each
other; nothing in ``afr`` imports the CLI; no module imports itself around a loop. A
dynamic import counts like a static one (``import_graph.source_copy``).
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest
from import_graph import ROOT, cycles_of, lint, source_copy, write_out_dynamic_imports


@pytest.fixture(scope="module")
def clean_copy(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return source_copy(tmp_path_factory.mktemp("layers"))


def test_every_contract_holds(clean_copy: Path) -> None:
    done = lint(clean_copy)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "broken" in done.stdout and " 0 broken" in done.stdout


def test_no_import_cycles(clean_copy: Path) -> None:
    done = cycles_of(clean_copy)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == ""


def test_dynamic_imports_name_their_module() -> None:
    """A dynamic import with a computed name would escape the contracts: only the lazy
    export machinery itself (afr/lazy.py) imports by a name it is given."""
    offenders = []
    for path in list((ROOT / "afr").rglob("*.py")) + list((ROOT / "cli").rglob("*.py")):
        if path == ROOT / "afr" / "lazy.py":
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) \
                    and node.func.attr == "import_module" \
                    and not (node.args and isinstance(node.args[0], ast.Constant)):
                offenders.append(f"{path.relative_to(ROOT)}:{node.lineno}")
    assert offenders == []


INJECTED = {
    # a lazy string export: the vectors layer would reach the pipeline at run time
    "lazy export upwards": ("afr/vectors/__init__.py", "\nfrom afr.lazy import lazy_exports\n"
                            "__getattr__ = lazy_exports('afr.vectors', "
                            "{'ask': 'afr.pipeline.ask'})\n"),
    # importlib by name: the store would load the command line
    "import_module of the CLI": ("afr/store/ddl.py", "\nimport importlib\n\n\ndef _cli():\n"
                                 "    return importlib.import_module('afr.cli.main')\n"),
    "import_module upwards": ("afr/store/base.py", "\nimport importlib\n\n\ndef _runner():\n"
                              "    return importlib.import_module('afr.evaluate.runner')\n"),
    # the root package's lazy API, reached from below
    "root lazy export": ("afr/store/base.py", "\n\ndef _pipeline():\n"
                         "    from afr import Pipeline\n    return Pipeline\n"),
    # one method reaching into another
    "method into method": ("afr/methods/kar/__init__.py",
                           "\n\ndef _af():\n    from afr.methods.af import retriever\n"
                           "    return retriever\n"),
    # a step of AF reaching a later one
    "AF step upwards": ("afr/methods/af/symbols.py",
                        "\n\ndef _rank():\n    from afr.methods.af import ranking\n"
                        "    return ranking\n"),
}


@pytest.mark.parametrize("case", sorted(INJECTED))
def test_a_violation_breaks_a_contract(case: str, tmp_path: Path) -> None:
    relative, addition = INJECTED[case]
    copy = source_copy(tmp_path)
    path = copy / relative
    path.write_text(path.read_text(encoding="utf-8") + addition, encoding="utf-8")
    write_out_dynamic_imports(path)
    done = lint(copy)
    assert done.returncode != 0, f"{case}: every contract still held\n{done.stdout}"
    assert "BROKEN" in done.stdout


def test_a_cycle_through_a_package_init_is_found(tmp_path: Path) -> None:
    """``store/__init__`` imports ``store.summary``; the summary importing the package back
    (inside a function) closes a loop."""
    copy = source_copy(tmp_path)
    path = copy / "afr/store/summary.py"
    path.write_text(path.read_text(encoding="utf-8") + "\n\ndef _open():\n"
                    "    from afr.store import open_store\n    return open_store\n",
                    encoding="utf-8")
    done = cycles_of(copy)
    assert "afr.store ↔ afr.store.summary" in done.stdout, done.stdout + done.stderr


def cli_imports(code: str) -> list[str]:
    """The afr modules a command-line module imports."""
    found = []
    for node in ast.walk(ast.parse(code)):
        if isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            found.append(node.module)
        elif isinstance(node, ast.Import):
            found += [a.name for a in node.names]
    return [m for m in found if m == "afr" or m.startswith("afr.")]


def test_the_cli_uses_only_the_packages_public_api() -> None:
    """A command parses its options, calls the library through a package's public names
    (``afr.pipeline``, ``afr.evaluate`` …), and formats: it reaches into no module."""
    deep = sorted({f"{p.name}: {m}" for p in (ROOT / "cli").glob("*.py")
                   for m in cli_imports(p.read_text(encoding="utf-8"))
                   if m.count(".") > 1 and not m.startswith("afr.cli.")})
    assert deep == []
    assert cli_imports("from afr.pipeline.runs import find_run\nimport afr.store\n") == [
        "afr.pipeline.runs", "afr.store"]
