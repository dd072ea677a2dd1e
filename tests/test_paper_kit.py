"""The reproduction kit (``bench/paper``): a paper table re-run through the command line
and printed beside the published numbers; the named-target question set."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType

import pytest
from afr.cli.main import cli
from click.testing import CliRunner

KIT = Path(__file__).resolve().parent.parent / "bench" / "paper"


def kit(name: str) -> ModuleType:
    spec = importlib.util.spec_from_file_location(f"paper_{name}", KIT / f"{name}.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # its dataclasses look their module up
    spec.loader.exec_module(module)
    return module


def test_every_published_row_cites_its_table() -> None:
    tables = kit("reproduce").PUBLISHED["tables"]
    for table, spec in tables.items():
        for label, row in spec["rows"].items():
            assert row["cite"].startswith(f"Table {table}"), (table, label)
            for dataset in ("prime", "mag", "amazon"):
                assert len(row.get(dataset, spec["columns"])) == len(spec["columns"])
    assert tables["5"]["rows"]["1-7"]["mag"] == [59.5, 94.3, 61.4, 71.3]  # as printed


def test_table_5_runs_through_afr_and_prints_beside_the_paper(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    runner = CliRunner()
    skb, db = tmp_path / "skb", tmp_path / "s.duckdb"
    for args in (["synth", str(skb), "--like", "prime", "--nodes", "300", "--questions", "6",
                  "--seed", "1"], ["--db", str(db), "load", str(skb)],
                 ["--db", str(db), "embed"]):
        assert runner.invoke(cli, args).exit_code == 0
    code = kit("reproduce").main([
        "5", "--db", str(db), "--questions", str(skb), "--dataset", "prime", "--replay",
        "cypher", "--preset", "paper", "--afr", f"{sys.executable} -m afr",
        "--", "--reranker", "none", "--offline"])
    out = capsys.readouterr()
    assert code == 0
    assert "--preset paper" in out.err and "--reranker none" in out.err  # echoed commands
    rows = {line.split()[0]: line for line in out.out.splitlines() if line[:3] in (
        "1+7", "1-5", "1-6", "1-7", "1-8")}
    assert list(rows) == ["1+7", "1-5", "1-6", "1-7", "1-8"]
    assert "/ 15.1" in rows["1+7"] and "/ 46.2" in rows["1-8"]  # the paper's PRIME hit@1


def test_named_targets_put_a_title_on_the_target() -> None:
    named = kit("named_targets")
    cypher = 'MATCH (a:author {name: "X"})-[:author_writes_paper]->(y:paper) RETURN y.name'
    assert named.with_named_target(cypher, "failure") == (
        'MATCH (a:author {name: "X"})-[:author_writes_paper]->(y:paper) '
        'WHERE y.title CONTAINS "failure" RETURN y.name')
    assert named.with_named_target("MATCH (y:paper) WHERE y.year = 2 RETURN y", "w") == (
        'MATCH (y:paper) WHERE y.year = 2 AND y.title CONTAINS "w" RETURN y')
    assert named.question_word("A paper by X, whose description mentions an end-to-end "
                               "failure analysis.") == "analysis"
    assert named.question_word("A paper by X.") is None
