"""The paper's per-step measures in `afr eval` (issue 26): target-type accuracy (Tables 12,
14, 15), the grounding's precision / specificity / processed counts (Table 19), the
tokens sent and received and the context overflows (Table 7), and the preset."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from afr.cli.main import cli
from click.testing import CliRunner

from afr.evaluate.paper_stats import (
    grounding_stats,
    overflow_counts,
    target_type_accuracy,
    token_split,
)


def row(qid: str, gold: list[str], steps: dict) -> dict:
    return {"question_id": qid, "gold": gold, "steps": steps}


def test_target_type_accuracy_counts_invalid_and_wrong_per_step() -> None:
    rows = [row("1", [], {"types": {"gold": "drug", "step1": "drug", "step2": "drug"}}),
            row("2", [], {"types": {"gold": "drug", "step1": None, "step2": "disease"}}),
            row("3", [], {"types": {"gold": "drug", "step1": "disease", "step2": "drug"}}),
            row("4", [], {"types": {"gold": None, "step1": "x", "step2": "y"}}),  # no gold
            row("5", [], {})]
    found = target_type_accuracy(rows)
    assert found is not None and found["questions"] == 3
    assert found["step1"] == pytest.approx({"invalid": 100 / 3, "wrong": 100 / 3})
    assert found["step2"] == pytest.approx({"invalid": 0.0, "wrong": 100 / 3})
    assert target_type_accuracy([row("1", [], {})]) is None


def test_grounding_stats_as_table_19_defines_them() -> None:
    graph = {"triplets": 1, "constants": 1}
    rows = [row("a", ["1", "2"], {"graph": graph}),  # grounded 1, 3, 4: precision 1/3
            row("b", ["5"], {"graph": graph}),  # grounded nothing
            row("c", ["6"], {"graph": {"triplets": 0, "constants": 1}}),  # not processed
            row("d", ["7"], {"graph": graph})]  # grounded 7: precision 1
    variants = {"a": {"1-5": {"ranked": ["1", "3", "4"]},
                      "1-6": {"metrics": {"hit@20": 1.0, "recall@20": 0.5}}},
                "b": {"1-5": {"ranked": []}, "1-6": {"metrics": {"hit@20": 0.0}}},
                "d": {"1-5": {"ranked": ["7"]},
                      "1-6": {"metrics": {"hit@20": 1.0, "recall@20": 1.0}}}}
    found = grounding_stats(rows, variants)
    assert found is not None
    assert found["processed"] == pytest.approx(75.0)  # a, b, d of four
    assert found["precision"] == pytest.approx(100 * (1 / 3 + 1) / 2)  # a and d
    assert found["specificity"] == pytest.approx(100 * (0.5 + 0 + 1) / 3)
    assert found["retrieved"] == pytest.approx(200 / 3)  # a and d of a, b, d
    assert found["hit@20"] == pytest.approx(100.0)
    assert found["recall@20"] == pytest.approx(75.0)
    assert grounding_stats([row("x", [], {})], {}) is None


def test_tokens_and_overflows() -> None:
    rows = [row("1", [], {"tokens": {"input": 100, "output": 10}, "overflows": ["full"]}),
            row("2", [], {"tokens": {"input": 50, "output": 30},
                          "overflows": ["full", "related"]}),
            row("3", [], {})]
    assert token_split(rows) == {"input_per_question": 50.0, "output_per_question": 40 / 3}
    assert overflow_counts(rows) == {"full": 2, "related": 1}


@pytest.fixture(scope="module")
def synth_store(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    base = tmp_path_factory.mktemp("paper-stats")
    runner = CliRunner()
    skb, db = base / "skb", base / "s.duckdb"
    for args in (["synth", str(skb), "--like", "prime", "--nodes", "400", "--questions", "12",
                  "--seed", "3"], ["--db", str(db), "load", str(skb)],
                 ["--db", str(db), "embed"]):
        done = runner.invoke(cli, args)
        assert done.exit_code == 0, done.output
    return skb, db


def test_a_paper_preset_eval_reports_the_preset_and_the_papers_measures(
        synth_store: tuple[Path, Path]) -> None:
    skb, db = synth_store
    runner = CliRunner()
    done = runner.invoke(cli, ["--db", str(db), "eval", "run", str(skb), "--replay",
                               "cypher_noisy", "--offline", "--reranker", "none", "--preset",
                               "paper", "--json", "--name", "p"])
    assert done.exit_code == 0, done.output
    summary, _ = json.JSONDecoder().raw_decode(done.output[done.output.index("{"):])
    assert summary["preset"] == "paper"
    # a replay takes step 1's type from the set: never wrong; the noisy Cypher's labels may be
    assert summary["target_types"]["step1"] == {"invalid": 0.0, "wrong": 0.0}
    grounding = summary["grounding"]
    assert grounding["processed"] > 0 and 0 < grounding["precision"] <= 100
    assert summary["llm"]["input_per_question"] == 0.0  # no LLM: nothing sent
    shown = runner.invoke(cli, ["--db", str(db), "eval", "show", "p"]).output
    assert "preset paper" in shown and "specificity" in shown and "target type" in shown
