"""`afr ask` says how sure its answers are (issue 10, item 14): a legend of the table's
columns, a mark where answers linked to exact name matches end, and a note when no graph
answer is linked to the entity the question names."""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace

import pytest
from afr.cli.ask_commands import EXACT_SEPARATOR, legend
from afr.cli.main import cli
from click.testing import CliRunner

from afr.demo import ensure_demo_store


@pytest.fixture(scope="module")
def demo(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return ensure_demo_store(tmp_path_factory.mktemp("demo") / "demo.duckdb", progress=False)


def _ask(demo: Path, question: str) -> tuple[str, str]:
    result = CliRunner().invoke(cli, ["--db", str(demo), "ask", question, "--offline",
                                      "--no-log"])
    assert result.exit_code == 0, result.output
    return result.stdout, result.stderr


def test_the_table_has_a_legend_and_marks_the_end_of_exact_matches(demo: Path) -> None:
    out, err = _ask(demo, "Which classes inherit from HTTPServer?")
    lines = out.splitlines()
    shown = [line for line in lines if line.startswith("#: ")]
    assert len(shown) == 1 and all(w in shown[0] for w in ("strand: ", "level:",
                                                           "cosine:"))
    assert "sage_seed" not in shown[0]  # only the strands in the table are explained
    sage = SimpleNamespace(reranked=False, method="sage")
    assert "sage_neighbour = similar to a seed" in legend(["sage_seed", "sage_neighbour"], sage)
    assert "#: the order of the sage ranking" in legend(["sage_seed"], sage)
    assert "level:" not in legend(["kar"], SimpleNamespace(reranked=True, method="kar"))
    at = lines.index(EXACT_SEPARATOR.rstrip())
    above = [line for line in lines[2:at]]
    below = [line for line in lines[at + 1:] if line[:3].strip().isdigit()]
    assert above and below
    assert all(line.split()[4] == "1" for line in above)  # level 1: the exact match
    assert any("ThreadingHTTPServer" in line for line in above)
    assert "no graph answer" not in err


def test_a_note_says_when_no_graph_answer_is_linked_to_the_named_entity(demo: Path) -> None:
    # OrderedDict's base (dict) is not in the SKB: every graph answer comes from nodes
    # with similar names.
    out, err = _ask(demo, "Which class does OrderedDict inherit from?")
    assert "no graph answer is linked to the exact name matches of 'OrderedDict'" in err
    assert EXACT_SEPARATOR.rstrip() not in out
