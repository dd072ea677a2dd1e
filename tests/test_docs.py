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
