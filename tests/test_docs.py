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
    """README.md's Command reference: command name → its entry (``"eval list"`` → text;
    ``""`` is the global options' entry, under the heading "`afr` …")."""
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    match = re.search(r"^## Command reference\n(.*?)(?=^## |\Z)", readme, re.M | re.S)
    assert match, "README.md has no '## Command reference' section"
    entries = {}
    for block in re.split(r"^### ", match.group(1), flags=re.M)[1:]:
        heading = re.match(r"`afr((?: [a-z][\w-]*)*)", block)
        assert heading, f"a Command reference heading does not name a command: {block[:60]!r}"
        entries[heading.group(1).strip()] = block
    return entries


def test_cli_is_documented() -> None:
    """Every command and option has help text, and README.md's Command reference has an
    entry for every command naming each of its options' long names (the idea of
    sqlite-utils' documentation test)."""
    import click

    entries = _command_reference()
    problems = []
    for name, command in _commands():
        label = f"afr {name}".strip()
        if not (command.help or "").strip():
            problems.append(f"{label}: no help text")
        entry = entries.get(name)
        if entry is None:
            problems.append(f"{label}: no entry in README.md's Command reference")
        for param in command.params:
            if not isinstance(param, click.Option) or param.name == "help":
                continue
            if not (param.help or "").strip():
                problems.append(f"{label} {param.opts[0]}: no help text")
            for opt in param.opts + param.secondary_opts:
                if entry is not None and opt.startswith("--") and not re.search(
                        rf"`{re.escape(opt)}[ `]", entry):
                    problems.append(f"{label} {opt}: not in its Command reference entry")
    stale = sorted(set(entries) - {name for name, _ in _commands()})
    problems += [f"afr {name}: in the Command reference but not a command" for name in stale]
    assert not problems, "the CLI is not fully documented:\n  " + "\n  ".join(problems)


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
