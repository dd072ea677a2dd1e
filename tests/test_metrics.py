"""Metrics against hand-computed cases (STaRK's definitions)."""

from __future__ import annotations

import pytest

from afr.evaluate.metrics import mean_metrics, question_metrics


def test_first_hit() -> None:
    m = question_metrics(["a", "b", "c"], ["a"])
    assert m["hit@1"] == 1 and m["mrr"] == 1 and m["recall@20"] == 1


def test_gold_at_rank_three() -> None:
    m = question_metrics(["x", "y", "g", "z"], ["g"])
    assert m["hit@1"] == 0 and m["hit@5"] == 1 and m["mrr"] == pytest.approx(1 / 3)


def test_recall_counts_hits_not_the_flag() -> None:
    # the reference code's bug: recall from the hit flag. Two of four gold found: 0.5.
    m = question_metrics(["g1", "x", "g2"], ["g1", "g2", "g3", "g4"])
    assert m["recall@20"] == 0.5 and m["hit@1"] == 1


def test_gold_outside_candidates_is_ignored() -> None:
    m = question_metrics(["g1"], ["g1", "not-a-candidate"], candidates={"g1", "x"})
    assert m["recall@20"] == 1.0


def test_empty_result_and_empty_gold() -> None:
    assert question_metrics([], ["g"]) == {
        "hit@1": 0, "hit@5": 0, "hit@10": 0, "hit@20": 0, "recall@20": 0, "mrr": 0}
    assert question_metrics(["a"], [])["mrr"] == 0


def test_duplicates_count_once() -> None:
    m = question_metrics(["x", "x", "x", "x", "x", "g"], ["g"])
    assert m["mrr"] == 0.5 and m["hit@1"] == 0 and m["hit@5"] == 1


def test_gold_beyond_twenty() -> None:
    ranked = [f"n{i}" for i in range(25)] + ["g"]
    m = question_metrics(ranked, ["g"])
    assert m["hit@20"] == 0 and m["recall@20"] == 0 and m["mrr"] == pytest.approx(1 / 26)


def test_mean() -> None:
    rows = [question_metrics(["g"], ["g"]), question_metrics(["x"], ["g"])]
    assert mean_metrics(rows)["hit@1"] == 0.5 and mean_metrics([])["mrr"] == 0
