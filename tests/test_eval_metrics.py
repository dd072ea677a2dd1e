"""Eval metrics: more hand-computed cases, and a cross-check against trec_eval.

trec_eval (through pytrec_eval, a test-only dependency) is an independent implementation
of success@k (= hit@k), recall@k and the reciprocal rank; on random rankings, gold sets and
candidate sets it must agree with afr.evaluate.metrics to the last digit.
"""

from __future__ import annotations

import random

import pytest
import pytrec_eval

from afr.evaluate.metrics import dedupe, mean_metrics, question_metrics


def test_ties_are_broken_by_list_position() -> None:
    # Two answers the retriever could not tell apart (same score): the returned order is
    # what counts, so the gold one second gives MRR 1/2, not a shared rank.
    assert question_metrics(["x", "g"], ["g"])["mrr"] == 0.5
    assert question_metrics(["g", "x"], ["g"])["mrr"] == 1.0


def test_several_gold_first_one_counts_for_mrr() -> None:
    m = question_metrics(["x", "g2", "y", "g1"], ["g1", "g2"])
    assert m["mrr"] == 0.5 and m["recall@20"] == 1.0 and m["hit@1"] == 0


def test_gold_only_outside_candidates_scores_zero() -> None:
    m = question_metrics(["g"], ["g"], candidates={"other"})
    assert m == {"hit@1": 0, "hit@5": 0, "hit@10": 0, "hit@20": 0, "recall@20": 0, "mrr": 0}


def test_gold_outside_candidates_does_not_count_for_hits_either() -> None:
    # "n" is returned first but is not a candidate: it is not gold for scoring purposes
    m = question_metrics(["n", "g"], ["n", "g"], candidates={"g"})
    assert m["hit@1"] == 0 and m["mrr"] == 0.5 and m["recall@20"] == 1.0


def test_duplicate_ids_do_not_inflate_recall_or_push_ranks() -> None:
    m = question_metrics(["g", "g", "g"], ["g", "h"])
    assert m["recall@20"] == 0.5
    # a duplicate in the first 20 does not push a later gold out of the top 20
    ranked = ["x"] + ["x"] * 30 + [f"n{i}" for i in range(18)] + ["h"]
    m = question_metrics(ranked, ["h"])
    assert m["hit@20"] == 1.0 and m["mrr"] == pytest.approx(1 / 20)


def test_duplicate_gold_ids_count_once() -> None:
    m = question_metrics(["g", "x"], ["g", "g", "h"])
    assert m["recall@20"] == 0.5


def test_hit_at_boundaries() -> None:
    ranked = [f"n{i}" for i in range(30)]
    for k in (1, 5, 10, 20):
        at = question_metrics(ranked, [f"n{k - 1}"])
        after = question_metrics(ranked, [f"n{k}"])
        assert at[f"hit@{k}"] == 1.0 and after[f"hit@{k}"] == 0.0


def test_mean_over_questions() -> None:
    rows = [question_metrics(["g"], ["g"]), question_metrics(["x", "g"], ["g"]),
            question_metrics([], ["g"])]
    assert mean_metrics(rows)["mrr"] == pytest.approx((1 + 0.5 + 0) / 3)
    assert mean_metrics(rows)["hit@5"] == pytest.approx(2 / 3)


def _random_case(rng: random.Random) -> tuple[list[str], list[str], set[str]]:
    universe = [f"d{i}" for i in range(60)]
    ranked = [rng.choice(universe) for _ in range(rng.randint(0, 45))]  # duplicates likely
    gold = rng.sample(universe, rng.randint(1, 6))
    candidates = set(rng.sample(universe, rng.randint(30, 60)))
    return ranked, gold, candidates


def test_cross_check_with_trec_eval() -> None:
    rng = random.Random(20240531)
    qrels: dict[str, dict[str, int]] = {}
    run: dict[str, dict[str, float]] = {}
    ours: dict[str, dict[str, float]] = {}
    while len(ours) < 300:
        ranked, gold, candidates = _random_case(rng)
        relevant = {g: 1 for g in gold if g in candidates}
        if not relevant:
            continue  # trec_eval skips topics without relevant documents
        qid = f"q{len(ours)}"
        ours[qid] = question_metrics(ranked, gold, candidates)
        qrels[qid] = relevant
        unique = dedupe(ranked)
        # strictly decreasing scores: trec_eval's order is then exactly the list's order
        run[qid] = {doc: float(len(unique) - i) for i, doc in enumerate(unique)}
        if not run[qid]:
            run[qid] = {"never-relevant": 0.0}  # trec_eval needs a ranking per topic
    evaluator = pytrec_eval.RelevanceEvaluator(
        qrels, {"success.1,5,10,20", "recall.20", "recip_rank"})
    theirs = evaluator.evaluate(run)
    assert set(theirs) == set(ours)
    for qid, m in ours.items():
        t = theirs[qid]
        assert m["hit@1"] == pytest.approx(t["success_1"]), qid
        assert m["hit@5"] == pytest.approx(t["success_5"]), qid
        assert m["hit@10"] == pytest.approx(t["success_10"]), qid
        assert m["hit@20"] == pytest.approx(t["success_20"]), qid
        assert m["recall@20"] == pytest.approx(t["recall_20"]), qid
        assert m["mrr"] == pytest.approx(t["recip_rank"]), qid
    # and the cases are not all alike: some hits, some misses
    assert 0 < sum(m["hit@1"] for m in ours.values()) < len(ours)
    assert 0 < sum(m["mrr"] == 0 for m in ours.values()) < len(ours)
