"""The project's documentation: documents cited by the code and the docs exist in the repo.

A docstring or comment that says "see some-notes.md" helps a reader only when that file is
part of the repository. Notes kept outside it (a shared folder, a planning directory) count
as missing, even when they exist on the machine that runs the tests.
"""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

# A Markdown file name, optionally with a relative or absolute path in front of it:
# `docs/method.md`, `../README.md`, `skb-format.md`, `afr/data/demo/README.md`. The
# look-behind keeps URLs (`https://host/x.md`) and the tails of longer names out.
_CITATION = re.compile(
    r"(?<![\w./:-])"
    r"((?:\.{1,2}/|/)?(?:[\w.-]+/)*[A-Za-z0-9_][\w.-]*\.md)"
    r"(?![\w/-]|\.\w)"
)


def _sources() -> list[Path]:
    """README.md, every Markdown file under docs/, the Python of afr/ and cli/, and the
    SQL templates (sql/, schema/)."""
    files = [ROOT / "README.md"]
    patterns = [("docs", "*.md"), ("afr", "*.py"), ("cli", "*.py"), ("sql", "*.sql"),
                ("sql", "*.j2"), ("schema", "*.sql")]
    for folder, pattern in patterns:
        if (ROOT / folder).is_dir():
            files += sorted((ROOT / folder).rglob(pattern))
    return [f for f in files if f.is_file()]


def _inside_repo(path: Path) -> bool:
    try:
        path.resolve().relative_to(ROOT)
    except ValueError:
        return False
    return True


def _exists(cited: str, citing: Path) -> bool:
    """Whether ``cited`` names a Markdown file of this repository.

    A path with a folder is taken relative to the repository root or to the citing file;
    a bare name is looked up in the citing file's folder, the repository root and anywhere
    under docs/."""
    if cited.startswith("/"):
        candidates = [Path(cited)]
    elif "/" in cited:
        candidates = [ROOT / cited, citing.parent / cited]
    else:
        candidates = [citing.parent / cited, ROOT / cited]
        docs = ROOT / "docs"
        if docs.is_dir():
            candidates += list(docs.rglob(cited))
    return any(c.is_file() and _inside_repo(c) for c in candidates)


def _citations(path: Path) -> list[tuple[int, str]]:
    text = path.read_text(encoding="utf-8", errors="replace")
    found = [(text.count("\n", 0, m.start()) + 1, m.group(1)) for m in _CITATION.finditer(text)]
    return sorted(set(found))  # a Markdown link [x.md](x.md) cites once


def test_cited_documents_exist() -> None:
    sources = _sources()
    assert ROOT / "README.md" in sources, "the repository has no README.md"
    missing = []
    for path in sources:
        for line, cited in _citations(path):
            if not _exists(cited, path):
                missing.append(f"{path.relative_to(ROOT)}:{line} → {cited}")
    assert not missing, (
        f"{len(missing)} cited document(s) are not in the repository "
        "(add them, e.g. under docs/, or cite one that is):\n  " + "\n  ".join(missing)
    )


def _commands():
    """(name, command) for every command of the CLI, groups' subcommands included:
    ``("eval list", …)``; the top-level group is ``("", cli)``."""
    import click
    from afr.cli.main import cli

    def walk(command: click.Command, name: str):
        yield name, command
        if isinstance(command, click.Group):
            for sub_name, sub in command.commands.items():
                if not sub.hidden:
                    yield from walk(sub, f"{name} {sub_name}".strip())

    return list(walk(cli, ""))


def _command_reference() -> dict[str, str]:
    """docs/cli.md's sections, by command name (``"eval list"`` → its text; ``""`` is the
    section of `afr` itself and its global options)."""
    page = (ROOT / "docs" / "cli.md").read_text(encoding="utf-8")
    entries = {}
    for block in re.split(r"^## ", page, flags=re.M)[1:]:
        heading = re.match(r"afr((?: [a-z][\w-]*)*)\n", block)
        if heading:  # other sections (the settings) name no command
            entries[heading.group(1).strip()] = block
    return entries


def test_cli_is_documented() -> None:
    """Every command and option has help text, and docs/cli.md has a section for every
    command naming each of its options' long names (the idea of sqlite-utils'
    documentation test) and no section for a command that is gone."""
    import click

    entries = _command_reference()
    problems = []
    for name, command in _commands():
        label = f"afr {name}".strip()
        if not (command.help or "").strip():
            problems.append(f"{label}: no help text")
        entry = entries.get(name)
        if entry is None:
            problems.append(f"{label}: no section in docs/cli.md")
        for param in command.params:
            if not isinstance(param, click.Option) or param.name == "help":
                continue
            if not (param.help or "").strip():
                problems.append(f"{label} {param.opts[0]}: no help text")
            for opt in param.opts + param.secondary_opts:
                if entry is not None and opt.startswith("--") and not re.search(
                        rf"[`/ ]{re.escape(opt)}[ `]", entry):
                    problems.append(f"{label} {opt}: not in its docs/cli.md section")
    stale = sorted(set(entries) - {name for name, _ in _commands()})
    problems += [f"afr {name}: in docs/cli.md but not a command" for name in stale]
    assert not problems, "the CLI is not fully documented:\n  " + "\n  ".join(problems)


# The documents with generated parts (cog blocks), and how to regenerate them.
GENERATED = ("docs/cli.md", "README.md")
REGENERATE = "cog -r " + " ".join(GENERATED)


def test_generated_parts_are_current() -> None:
    """docs/cli.md (the command reference and the settings) and the README's list of
    settings are what ``cog -r docs/cli.md README.md`` makes of the code today
    (``afr.cli.reference``)."""
    import io

    from cogapp import Cog

    out = io.StringIO()
    cog = Cog()
    cog.set_output(stdout=out, stderr=out)
    status = cog.main(["cog", "--check", "--diff", f"--check-fail-msg=run: {REGENERATE}",
                       *(str(ROOT / f) for f in GENERATED)])
    assert status == 0, f"generated documentation is out of date ({REGENERATE}):\n" \
        + out.getvalue()[-4000:]


def test_readme_links_every_command() -> None:
    """The README's command table names every command of `afr`, each linked to its
    section of docs/cli.md, and every such link goes to a section that exists."""
    from afr.cli.reference import anchor

    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    linked = set(re.findall(r"\]\(docs/cli\.md#([\w-]+)\)", readme))
    top = {name for name, _ in _commands() if name and " " not in name}
    missing = sorted(n for n in top if anchor(f"afr {n}") not in linked)
    sections = {anchor(f"afr {n}".strip()) for n in _command_reference()} | {"settings"}
    broken = sorted(linked - sections)
    assert not missing, f"commands the README's command table does not link: {missing}"
    assert not broken, f"README links to docs/cli.md sections that do not exist: {broken}"


def _methods_modules() -> list[Path]:
    return sorted((ROOT / "afr" / "methods").rglob("*.py"))


def test_method_map_names_every_methods_module() -> None:
    """docs/method.md names every module of the methods package by its path (a package's
    ``__init__.py`` also as the package's folder, ``afr/methods/kar/``), so its step →
    module map cannot leave one out."""
    text = (ROOT / "docs" / "method.md").read_text(encoding="utf-8")
    modules = _methods_modules()
    assert len(modules) >= 20, "the methods package is not where this test looks"
    missing = []
    for path in modules:
        rel = path.relative_to(ROOT).as_posix()
        names = [rel]
        if path.name == "__init__.py":
            names.append(path.parent.relative_to(ROOT).as_posix() + "/")
        if not any(re.search(rf"(?<![\w/.]){re.escape(n)}(?![\w.])", text) for n in names):
            missing.append(rel)
    assert not missing, f"docs/method.md does not name these modules: {missing}"


# A path of the repository in backticks: `afr/methods/af/ranking.py`, `sql/ground/`.
_REPO_PATH = re.compile(r"`((?:afr|cli|sql|schema|tests|bench|docker|docs)/[^`\s]*)`")


def test_paths_named_in_the_docs_exist() -> None:
    """Every file or folder of the repository that README.md or docs/*.md names in
    backticks exists (``*`` may stand for part of a name; placeholders in angle brackets
    or capitals, ``sql/<area>/``, ``schema/NNN_*.sql``, are not paths)."""
    docs = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
    missing = []
    for doc in docs:
        text = doc.read_text(encoding="utf-8")
        for m in _REPO_PATH.finditer(text):
            path = m.group(1).rstrip(".,:;")
            if "<" in path or re.search(r"[A-Z]{3}", path):
                continue
            if not (list(ROOT.glob(path.rstrip("/"))) if "*" in path
                    else (ROOT / path).exists()):
                line = text.count("\n", 0, m.start()) + 1
                missing.append(f"{doc.relative_to(ROOT)}:{line} → {path}")
    assert not missing, "paths named in the docs that do not exist:\n  " + \
        "\n  ".join(missing)


def test_options_come_from_the_settings_tree() -> None:
    """An ask option is its setting's: the same choices, bounds and help, one place for
    each default (afr.settings.tree)."""
    import click
    from afr.cli.main import cli

    from afr.settings import METHODS, RERANKERS, Settings, by_path

    known = by_path(Settings)
    options = {opt: p for p in cli.commands["ask"].params if isinstance(p, click.Option)
               for opt in p.opts}
    assert tuple(options["--method"].type.choices) == METHODS
    assert tuple(options["--reranker"].type.choices) == RERANKERS
    l_max = options["--l-max"].type
    assert (l_max.min, l_max.max) == (known["af.l_max"].knob.minimum,
                                      known["af.l_max"].knob.maximum)
    assert options["--l-max"].help.startswith(known["af.l_max"].knob.help)
    assert "[default: 100]" in options["--l-max"].help
