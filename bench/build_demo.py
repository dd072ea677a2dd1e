"""Build the bundled demo SKB from the Python standard library's source code.

The graph: modules, classes, functions and exceptions of CPython's standard library,
who defines what, who inherits from whom, which module imports which. Text is each
object's docstring. Everything is read with ``ast`` from the interpreter's ``Lib``
folder — nothing is imported or executed (some modules have side effects) — except the
built-in exception hierarchy, read from the ``builtins`` module. The output is
deterministic: the same interpreter gives byte-identical files.

    python bench/build_demo.py --out afr/data/demo
"""

from __future__ import annotations

import argparse
import ast
import builtins
import csv
import gzip
import inspect
import io
import json
import re
import sys
import sysconfig
from collections import defaultdict
from dataclasses import dataclass, field
from pathlib import Path

SKIP_TOP = {
    "test", "idlelib", "tkinter", "turtledemo", "lib2to3", "ensurepip", "site-packages",
    "__pycache__", "antigravity", "this", "__phello__", "pydoc_data", "turtle", "venv",
    "distutils", "config-3", "lib-dynload", "msilib",
}
MAX_FUNCTIONS_PER_MODULE = 12
MAX_CLASSES_PER_MODULE = 15
TEXT_LIMIT = 1500
# Feature releases of CPython and their dates (python.org release announcements).
RELEASE_DATES = {
    "3.0": "2008-12-03", "3.1": "2009-06-27", "3.2": "2011-02-20", "3.3": "2012-09-29",
    "3.4": "2014-03-16", "3.5": "2015-09-13", "3.6": "2016-12-23", "3.7": "2018-06-27",
    "3.8": "2019-10-14", "3.9": "2020-10-05", "3.10": "2021-10-04", "3.11": "2022-10-24",
    "3.12": "2023-10-02", "3.13": "2024-10-07",
}
_ADDED = re.compile(r"(?:New|Added) in version (\d\.\d+)")

SCHEMA = {
    "name": "python-stdlib",
    "description": "Modules, classes, functions and exceptions of the Python standard library",
    # Every relation of the demo has a direction (a subclass of, defines, imports): an arrow
    # in Cypher is followed only that way ("classes inheriting from X" are not X's bases).
    "directed": True,
    "candidate_types": ["module", "class", "function", "exception"],
    "node_types": {
        "module": {"description": "a module or package of the standard library"},
        "class": {"description": "a class defined in a module"},
        "function": {"description": "a module-level function"},
        "exception": {"description": "an exception class (built-in or defined in a module)"},
    },
    "edge_types": {
        "defines_class": {"source": "module", "target": "class",
                          "label": "module_defines_class",
                          "description": "the module defines the class"},
        "defines_function": {"source": "module", "target": "function",
                             "label": "module_defines_function",
                             "description": "the module defines the function"},
        "defines_exception": {"source": "module", "target": "exception",
                              "label": "module_defines_exception",
                              "description": "the module defines the exception"},
        "class_inherits": {"source": "class", "target": "class",
                           "label": "class_inherits_from_class",
                           "description": "the first class is a subclass of the second"},
        "exception_inherits": {"source": "exception", "target": "exception",
                               "label": "exception_inherits_from_exception",
                               "description": "the first exception is a subclass of the second"},
        "imports": {"source": "module", "target": "module", "label": "module_imports_module",
                    "description": "the first module imports the second"},
    },
}


@dataclass
class Node:
    id: str
    type: str
    name: str
    aliases: list[str]
    text: str
    attrs: dict


@dataclass
class Graph:
    nodes: dict[str, Node] = field(default_factory=dict)
    edges: set[tuple[str, str, str]] = field(default_factory=set)


def _clean_doc(doc: str | None) -> str:
    if not doc:
        return ""
    text = inspect.cleandoc(doc)
    return text if len(text) <= TEXT_LIMIT else text[: TEXT_LIMIT - 1].rsplit(" ", 1)[0] + "…"


def _added(doc: str) -> dict:
    m = _ADDED.search(doc or "")
    if m and m.group(1) in RELEASE_DATES:
        return {"added_in": m.group(1), "added_in_release_date": RELEASE_DATES[m.group(1)]}
    return {}


def module_files(lib: Path) -> list[tuple[str, Path]]:
    """(dotted name, file) of public modules: top level and one package level down."""
    out = []
    for path in sorted(lib.iterdir()):
        name = path.stem if path.suffix == ".py" else path.name
        if name.startswith("_") or name in SKIP_TOP or "-" in name:
            continue
        if path.suffix == ".py":
            out.append((name, path))
        elif path.is_dir() and (path / "__init__.py").exists():
            out.append((name, path / "__init__.py"))
            for sub in sorted(path.glob("*.py")):
                if not sub.stem.startswith("_"):
                    out.append((f"{name}.{sub.stem}", sub))
    return out


def _is_exception_name(name: str) -> bool:
    return name.endswith(("Error", "Exception", "Warning")) or name in (
        "Exception", "BaseException", "StopIteration", "KeyboardInterrupt", "SystemExit",
        "GeneratorExit", "StopAsyncIteration")


def add_builtin_exceptions(g: Graph) -> None:
    g.nodes["module:builtins"] = Node(
        "module:builtins", "module", "builtins", [],
        _clean_doc(builtins.__doc__), {"is_package": False, "lines_of_code": 0,
                                       "num_classes": 0, "num_functions": 0})
    for name in sorted(dir(builtins)):
        obj = getattr(builtins, name)
        if isinstance(obj, type) and issubclass(obj, BaseException) and not name.startswith("_"):
            node_id = f"exception:builtins.{name}"
            g.nodes[node_id] = Node(node_id, "exception", name, [f"builtins.{name}"],
                                    _clean_doc(obj.__doc__),
                                    {"builtin": True, "num_methods": 0, "num_bases": 1})
            g.edges.add(("module:builtins", "defines_exception", node_id))
    for name in sorted(dir(builtins)):
        obj = getattr(builtins, name)
        if isinstance(obj, type) and issubclass(obj, BaseException) and not name.startswith("_"):
            for base in obj.__bases__:
                base_id = f"exception:builtins.{base.__name__}"
                if base_id in g.nodes:
                    g.edges.add((f"exception:builtins.{name}", "exception_inherits", base_id))


@dataclass
class ModuleInfo:
    name: str
    tree: ast.Module
    source: str
    imports: dict[str, str] = field(default_factory=dict)  # local name → dotted target
    imported_modules: set[str] = field(default_factory=set)


def _imports(info: ModuleInfo, known: set[str]) -> None:
    for node in info.tree.body:
        if isinstance(node, ast.Import):
            for alias in node.names:
                info.imports[alias.asname or alias.name.split(".")[0]] = alias.name
                info.imported_modules.add(alias.name)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            info.imported_modules.add(node.module)
            for alias in node.names:
                info.imports[alias.asname or alias.name] = f"{node.module}.{alias.name}"
    info.imported_modules = {m for m in info.imported_modules if m in known}


def _params(fn: ast.FunctionDef | ast.AsyncFunctionDef) -> int:
    a = fn.args
    return len(a.posonlyargs) + len(a.args) + len(a.kwonlyargs) + (a.vararg is not None) + (
        a.kwarg is not None)


def _decorators(node: ast.AST) -> list[str]:
    return sorted(ast.unparse(d).split("(")[0] for d in getattr(node, "decorator_list", []))


def build(lib: Path) -> Graph:
    g = Graph()
    add_builtin_exceptions(g)
    modules: dict[str, ModuleInfo] = {}
    for name, path in module_files(lib):
        try:
            source = path.read_text(encoding="utf-8")
            modules[name] = ModuleInfo(name, ast.parse(source), source)
        except (SyntaxError, UnicodeDecodeError, ValueError):
            continue
    known = set(modules) | {"builtins"}
    for info in modules.values():
        _imports(info, known)
    # Pass 1: nodes.
    defined: dict[str, dict[str, str]] = defaultdict(dict)  # module → local name → node id
    class_bases: dict[str, list[ast.expr]] = {}
    for name, info in modules.items():
        doc = ast.get_docstring(info.tree) or ""
        classes = [n for n in info.tree.body if isinstance(n, ast.ClassDef)
                   and not n.name.startswith("_")]
        functions = [n for n in info.tree.body if isinstance(n, ast.FunctionDef | ast.AsyncFunctionDef)
                     and not n.name.startswith("_")]
        module_id = f"module:{name}"
        g.nodes[module_id] = Node(
            module_id, "module", name, [], _clean_doc(doc) or f"The {name} module.",
            {"is_package": info.source is not None and name in {m.split(".")[0] for m in modules
                                                                  if "." in m},
             "lines_of_code": info.source.count("\n") + 1, "num_classes": len(classes),
             "num_functions": len(functions), **_added(doc)})
        exceptions = [c for c in classes if _is_exception_name(c.name)]
        plain = [c for c in classes if c not in exceptions]
        for cls in exceptions + plain[:MAX_CLASSES_PER_MODULE]:
            kind = "exception" if cls in exceptions else "class"
            node_id = f"{kind}:{name}.{cls.name}"
            cdoc = ast.get_docstring(cls) or ""
            methods = [n for n in cls.body if isinstance(n, ast.FunctionDef | ast.AsyncFunctionDef)]
            g.nodes[node_id] = Node(
                node_id, kind, cls.name, [f"{name}.{cls.name}"],
                _clean_doc(cdoc) or f"{'Exception' if kind == 'exception' else 'Class'} "
                                    f"{cls.name} defined in module {name}.",
                {"num_methods": len(methods), "num_bases": len(cls.bases),
                 "lines_of_code": (cls.end_lineno or cls.lineno) - cls.lineno + 1,
                 "decorators": _decorators(cls), **_added(cdoc)})
            g.edges.add((module_id, "defines_exception" if kind == "exception"
                         else "defines_class", node_id))
            defined[name][cls.name] = node_id
            class_bases[node_id] = cls.bases
        for fn in functions[:MAX_FUNCTIONS_PER_MODULE]:
            node_id = f"function:{name}.{fn.name}"
            fdoc = ast.get_docstring(fn) or ""
            g.nodes[node_id] = Node(
                node_id, "function", fn.name, [f"{name}.{fn.name}"],
                _clean_doc(fdoc) or f"Function {fn.name} in module {name}, taking "
                                     f"{_params(fn)} parameters.",
                {"num_parameters": _params(fn),
                 "lines_of_code": (fn.end_lineno or fn.lineno) - fn.lineno + 1,
                 "is_async": isinstance(fn, ast.AsyncFunctionDef),
                 "decorators": _decorators(fn), **_added(fdoc)})
            g.edges.add((module_id, "defines_function", node_id))
            defined[name][fn.name] = node_id
    # Pass 2: imports and inheritance.
    for name, info in modules.items():
        for target in info.imported_modules:
            if target != name and f"module:{target}" in g.nodes:
                g.edges.add((f"module:{name}", "imports", f"module:{target}"))
    for node_id, bases in class_bases.items():
        module = node_id.split(":", 1)[1].rsplit(".", 1)[0]
        for base in bases:
            target = _resolve_base(base, module, modules, defined, g)
            if target is None:
                continue
            kind, target_kind = node_id.split(":")[0], target.split(":")[0]
            if kind == target_kind == "exception":
                g.edges.add((node_id, "exception_inherits", target))
            elif kind == target_kind == "class":
                g.edges.add((node_id, "class_inherits", target))
    return g


def _resolve_base(base: ast.expr, module: str, modules: dict[str, ModuleInfo],
                  defined: dict[str, dict[str, str]], g: Graph) -> str | None:
    if isinstance(base, ast.Name):
        if base.id in defined[module]:
            return defined[module][base.id]
        target = modules[module].imports.get(base.id)
        if target and "." in target:
            mod, attr = target.rsplit(".", 1)
            return defined.get(mod, {}).get(attr)
        builtin = f"exception:builtins.{base.id}"
        return builtin if builtin in g.nodes else None
    if isinstance(base, ast.Attribute) and isinstance(base.value, ast.Name):
        mod = modules[module].imports.get(base.value.id, base.value.id)
        return defined.get(mod, {}).get(base.attr)
    return None


# -- questions -------------------------------------------------------------------------


def _by_type(g: Graph, t: str) -> list[Node]:
    return sorted((n for n in g.nodes.values() if n.type == t), key=lambda n: n.id)


def _neighbours(g: Graph) -> dict[tuple[str, str], set[str]]:
    out: dict[tuple[str, str], set[str]] = defaultdict(set)
    for src, etype, dst in g.edges:
        out[(src, etype)].add(dst)
        out[(dst, "~" + etype)].add(src)
    return out


@dataclass
class DemoQuestion:
    id: str
    query: str
    answers: list[str]
    target_type: str
    cypher: str  # the gold Cypher: what a careful LLM would write for the question
    cypher_noisy: str  # the same with LLM-like mistakes (afr.synth's noise), for replays
    noise: str


def _spec(target_type: str, links: list[tuple[str, ...]]):
    """A query spec: the target ``y`` and, per link, (edge type, other type, other name,
    "out" when the anchor is the edge's source else "in"[, anchor variable, default y]);
    link i introduces the constant ``c<i>``."""
    from afr.synth.cypher import QuerySpec, Sym, Trip

    symbols = {"y": Sym("y", target_type)}
    triplets = []
    for i, (edge, other_type, other_name, way, *anchor) in enumerate(links, 1):
        var, at = f"c{i}", (anchor[0] if anchor else "y")
        symbols[var] = Sym(var, other_type, other_name)
        triplets.append(Trip(at, edge, var) if way == "out" else Trip(var, edge, at))
    return QuerySpec("y", symbols, triplets)


def _cypher(spec, where: str) -> str:
    from afr.synth.cypher import render

    labels = {t: e["label"] for t, e in SCHEMA["edge_types"].items()}
    text = render(spec, labels)
    return text.replace(" RETURN ", f" WHERE {where} RETURN ") if where else text


def make_questions(g: Graph, want: int = 22) -> list[DemoQuestion]:
    import numpy as np

    from afr.synth.cypher import NoiseContext, add_noise

    nb = _neighbours(g)
    qs: list[tuple[str, list[str], str, object, str]] = []
    current: dict[str, object] = {}

    def take(question: str, answers: set[str], limit: int = 10) -> None:
        if 1 <= len(answers) <= limit and question not in {q[0] for q in qs}:
            qs.append((question, sorted(answers), str(current["type"]), current["spec"],
                       str(current.get("where", ""))))

    def gold(target_type: str, links: list[tuple[str, ...]], where: str = "") -> None:
        current.update(type=target_type, spec=_spec(target_type, links), where=where)

    modules = [m for m in _by_type(g, "module") if m.name != "builtins"]
    exc_nodes = _by_type(g, "exception")
    # 1. exceptions of a module inheriting from a given exception (2 constraints)
    for m in modules:
        for base in ("ValueError", "OSError", "Exception", "TypeError", "RuntimeError"):
            base_id = f"exception:builtins.{base}"
            answers = {e for e in nb[(f"module:{m.name}", "defines_exception")]
                       if base_id in nb[(e, "exception_inherits")]}
            if len(qs) < 6:
                gold("exception", [("defines_exception", "module", m.name, "in"),
                                   ("exception_inherits", "exception", base, "out")])
                take(f"Which exceptions defined in the {m.name} module inherit from {base}?",
                     answers, 6)
    # 2. the module that defines a function (1 hop)
    for f in _by_type(g, "function"):
        if len(qs) >= 10:
            break
        owners = nb[(f.id, "~defines_function")]
        same_name = [n for n in g.nodes.values() if n.type == "function" and n.name == f.name]
        if len(same_name) == 1 and len(f.name) > 8 and f.text and "Function " not in f.text:
            gold("module", [("defines_function", "function", f.name, "out")])
            take(f"Which module defines the function {f.name}?", owners, 1)
    # 3. classes inheriting from a class (1 hop), named by their module
    for c in _by_type(g, "class"):
        if len(qs) >= 14:
            break
        subs = nb[(c.id, "~class_inherits")]
        if len(subs) >= 2:
            module = c.id.split(":", 1)[1].rsplit(".", 1)[0]
            gold("class", [("class_inherits", "class", c.name, "out")])
            take(f"Which classes inherit from {c.name} of the {module} module?", subs, 8)
    # 4. functions of a module with many parameters (an attribute condition)
    for m in modules:
        if len(qs) >= 18:
            break
        fns = nb[(f"module:{m.name}", "defines_function")]
        answers = {f for f in fns if g.nodes[f].attrs["num_parameters"] > 5}
        if 1 <= len(answers) < len(fns):
            gold("function", [("defines_function", "module", m.name, "in")],
                 "y.num_parameters > 5")
            take(f"Which functions of the {m.name} module take more than 5 parameters?",
                 answers, 5)
    # 5. what an exception inherits from (1 hop)
    for e in exc_nodes:
        if len(qs) >= want:
            break
        if e.attrs.get("builtin"):
            continue
        parents = nb[(e.id, "exception_inherits")]
        module = e.id.split(":", 1)[1].rsplit(".", 1)[0]
        if len(parents) == 1 and len([x for x in exc_nodes if x.name == e.name]) == 1:
            # (module)-[defines]->(e)-[inherits]->(y): the module names e, not the answer
            gold("exception", [("exception_inherits", "exception", e.name, "in"),
                               ("defines_exception", "module", module, "in", "c1")])
            take(f"Which exception is the base class of {e.name} in the {module} module?",
                 parents, 1)
    # Mistakes like an LLM's, reproducibly: misspelled or partial names, reversed edges,
    # dropped conditions, wrong types (no extra conditions: they need a graph sampler).
    rng = np.random.default_rng(0)
    noise_ctx = NoiseContext(list(SCHEMA["node_types"]), lambda q, r: None)
    out = []
    for i, (question, answers, target_type, spec, where) in enumerate(qs):
        noisy = add_noise(spec, noise_ctx, rng) or spec
        out.append(DemoQuestion(str(i), question, answers, target_type, _cypher(spec, where),
                                _cypher(noisy, where), "+".join(noisy.noise)))
    return out


# -- output ----------------------------------------------------------------------------


def _gz_write(path: Path, text: str) -> None:
    buf = io.BytesIO()
    with gzip.GzipFile(fileobj=buf, mode="wb", mtime=0, compresslevel=9) as fh:
        fh.write(text.encode("utf-8"))
    path.write_bytes(buf.getvalue())


def write(g: Graph, questions: list[DemoQuestion], out: Path) -> None:
    out.mkdir(parents=True, exist_ok=True)
    schema = dict(SCHEMA, python_version=".".join(map(str, sys.version_info[:3])))
    (out / "skb.json").write_text(json.dumps(schema, indent=2) + "\n", encoding="utf-8")
    lines = []
    for node in sorted(g.nodes.values(), key=lambda n: n.id):
        record = {"id": node.id, "type": node.type, "name": node.name}
        if node.aliases:
            record["aliases"] = node.aliases
        record["text"] = node.text
        record["attrs"] = dict(node.attrs, snapshot_release_date=RELEASE_DATES["3.11"]
                               if sys.version_info[:2] == (3, 11) else None)
        if record["attrs"]["snapshot_release_date"] is None:
            del record["attrs"]["snapshot_release_date"]
        lines.append(json.dumps(record, ensure_ascii=False, sort_keys=False))
    _gz_write(out / "nodes.jsonl.gz", "\n".join(lines) + "\n")
    edges = io.StringIO()
    writer = csv.writer(edges, lineterminator="\n")
    writer.writerow(["src", "type", "dst"])
    for src, etype, dst in sorted(g.edges):
        writer.writerow([src, etype, dst])
    _gz_write(out / "edges.csv.gz", edges.getvalue())
    qbuf = io.StringIO()
    writer = csv.writer(qbuf, lineterminator="\n")
    writer.writerow(["id", "query", "answer_ids", "target_type", "cypher", "cypher_noisy",
                     "noise"])
    for q in questions:
        writer.writerow([q.id, q.query, json.dumps(q.answers), q.target_type, q.cypher,
                         q.cypher_noisy, q.noise])
    (out / "questions.csv").write_text(qbuf.getvalue(), encoding="utf-8")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--out", type=Path, required=True, help="output SKB directory")
    parser.add_argument("--lib", type=Path, default=Path(sysconfig.get_paths()["stdlib"]),
                        help="the standard library folder to read (default: this Python's)")
    args = parser.parse_args()
    graph = build(args.lib)
    questions = make_questions(graph)
    write(graph, questions, args.out)
    counts: dict[str, int] = defaultdict(int)
    for node in graph.nodes.values():
        counts[node.type] += 1
    ecounts: dict[str, int] = defaultdict(int)
    for _, etype, _ in graph.edges:
        ecounts[etype] += 1
    print(f"{len(graph.nodes)} nodes {dict(counts)}; {len(graph.edges)} edges {dict(ecounts)}; "
          f"{len(questions)} questions → {args.out}")


if __name__ == "__main__":
    main()
