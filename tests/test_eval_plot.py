"""`afr eval plot` (issue 23, item 18): every plot written as SVG, PNG and PDF (a valid
header, not empty), every plot drawn as text, and what happens without matplotlib.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest
from afr.cli.main import cli
from click.testing import CliRunner
from toy_stores import question_file

from afr.evaluate.plot_text import bar, win_loss_text
from afr.evaluate.plots import WinLoss

pytest_plugins = ("toy_fixtures",)  # toy_db

HEADERS = {"svg": b"<?xml", "png": b"\x89PNG\r\n\x1a\n", "pdf": b"%PDF-"}


@pytest.fixture
def evaluated(toy_db: list[str], tmp_path: Path) -> list[str]:
    """The store with one offline run of 4 questions, named "base"."""
    qfile = question_file(tmp_path / "q.csv", 4)
    result = CliRunner().invoke(cli, [*toy_db, "--no-progress", "eval", str(qfile),
                                      "--offline", "--name", "base"])
    assert result.exit_code == 0, result.output
    return toy_db


def plot(db: list[str], *args: str):
    return CliRunner().invoke(cli, [*db, "eval", "plot", *args])


@pytest.mark.parametrize("kind", ["hits", "winloss", "latency"])
def test_each_plot_is_written(evaluated: list[str], tmp_path: Path, kind: str) -> None:
    for fmt, header in HEADERS.items():
        out = tmp_path / f"{kind}.{fmt}"
        # the toy store has no lexical index: BM25's list finds nothing, the final one all
        result = plot(evaluated, "base@bm25", "base", "--kind", kind, "-o", str(out))
        assert result.exit_code == 0, result.output
        data = out.read_bytes()
        assert len(data) > 1000 and data.startswith(header), (fmt, data[:20])
        if fmt == "svg":
            assert b"<svg" in data
        assert f"wrote {out} ({kind})" in result.stderr
    assert [p.name for p in tmp_path.iterdir() if p.name.endswith(".part")] == []


def test_the_plots_as_text(evaluated: list[str]) -> None:
    one = plot(evaluated, "base")  # hit@k of each list, and latency
    assert one.exit_code == 0, one.output
    assert "hit@k of the lists of eval base (percent)" in one.stdout
    assert "1-8   " in one.stdout and "██████████ 100.0" in one.stdout
    assert "bm25" in one.stdout and "step latency per question: median" in one.stdout
    assert "5_grounding" in one.stdout
    two = plot(evaluated, "base@bm25", "base", "--metric", "hit@1")
    assert two.exit_code == 0, two.output
    assert ("hit@1 of B (base) minus A (base@bm25), per question: B better on 4, A better "
            "on 0, tied on 0") in two.stdout
    assert two.stdout.count("│████████████████████") == 4


def test_bad_requests(evaluated: list[str], tmp_path: Path) -> None:
    lone = plot(evaluated, "base", "--kind", "winloss")
    assert lone.exit_code == 2 and "compares two runs or lists" in lone.stderr
    text = plot(evaluated, "base", "-o", str(tmp_path / "plot.txt"))
    assert text.exit_code == 1 and "written as .svg, .png or .pdf" in text.stderr
    nope = plot(evaluated, "base@nope")
    assert nope.exit_code == 1 and "has no list 'nope'" in nope.stderr
    assert list(tmp_path.glob("plot*")) == []


def test_without_matplotlib(evaluated: list[str], tmp_path: Path,
                            monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "matplotlib", None)  # import matplotlib fails
    out = tmp_path / "plot.svg"
    result = plot(evaluated, "base", "-o", str(out))
    assert result.exit_code == 1 and not out.exists()
    assert "writing" in result.stderr and "needs matplotlib: pip install" in result.stderr
    assert "[plot]" in result.stderr
    text = plot(evaluated, "base")  # the terminal needs none
    assert text.exit_code == 0 and "hit@k of the lists" in text.stdout


def test_text_bars() -> None:
    assert bar(0.5, 8) == "████    " and bar(1 / 64, 8) == "▏       "
    assert bar(2.0, 4) == "████" and bar(-1, 4) == "    "
    drawn = win_loss_text(WinLoss("A", "B", "mrr", (("q1", 0.5), ("q2", 0.0), ("q3", -1.0))))
    lines = drawn.splitlines()
    assert "B better on 1, A better on 1, tied on 1" in lines[0]
    assert lines[1].startswith("  q1 +0.500") and lines[1].endswith("│" + "█" * 10)
    assert lines[2].startswith("  q3 -1.000") and lines[2].endswith("░" * 20 + "│")


def test_plot_reads_what_export_says(evaluated: list[str]) -> None:
    """The curves are the run's own numbers: hit@k as `afr eval show --json` has them."""
    shown = json.loads(CliRunner().invoke(cli, [*evaluated, "eval", "show", "base",
                                                "--json"]).stdout)
    final = shown["metrics"]["1-8"]
    drawn = plot(evaluated, "base", "--kind", "hits").stdout
    line = next(row for row in drawn.splitlines() if row.startswith("1-8 "))
    values = [float(x) for x in line.split() if x.replace(".", "").isdigit()]
    assert values == [round(100 * final[f"hit@{k}"], 1) for k in (1, 5, 10, 20)]
