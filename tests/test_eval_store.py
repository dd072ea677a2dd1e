"""Eval on both stores (DuckDB and a real PostgreSQL), and the question loaders."""

from __future__ import annotations

import csv
import json
from pathlib import Path

import pytest
from settings_util import settings_of
from skbutil import toy_skb

from afr.embed import make_embedder
from afr.errors import AfrError
from afr.evaluate.eval_runs import EvalSettings, create_eval_run, find_eval_run
from afr.evaluate.metrics import METRICS
from afr.evaluate.questions import load_questions
from afr.evaluate.report import export_rows, summarize
from afr.evaluate.runner import Evaluator
from afr.load import load_skb_dir
from afr.pipeline.ask import Pipeline
from afr.settings import Settings, to_dict, with_stored
from afr.store import Store
from afr.vectors import embed_store

GCN = ("MATCH (a:author {name: 'Thomas Kipf'})-[:author_writes_paper]->(p:paper)"
       "-[:paper_has_field]->(f:field {name: 'graph learning'}) RETURN p")
CITES = ("MATCH (p:paper)-[:paper_cites_paper]->(q:paper {name: 'Semi-supervised "
         "classification with GCNs'}) RETURN p")


def test_eval_on_both_stores(store: Store, tmp_path: Path) -> None:
    skb = toy_skb(tmp_path / "toy")
    load_skb_dir(store, skb, replace=True, progress=False)
    embed_store(store, make_embedder("hash"), progress=False)
    with open(skb / "questions.csv", "w", newline="", encoding="utf-8") as fh:
        w = csv.writer(fh)
        w.writerow(["id", "query", "answer_ids", "target_type", "cypher"])
        w.writerow([0, "Which paper by Thomas Kipf is about graph learning?", '["p3"]',
                    "paper", GCN])
        w.writerow([1, "Which graph learning paper cites the GCN paper?", '["p2", "a1"]',
                    "paper", CITES])
        w.writerow([2, "Which paper did nobody write?", "[12, 7]", "paper", "MATCH"])
    store.require_initialised()
    config = settings_of(llm__offline=True, ask__k=3)
    settings = EvalSettings(source=str(skb), replay="cypher", concurrency=2,
                            sweeps={"alpha": [0.0, 1.0], "l_max": [1]},
                            ask=to_dict(config))
    questions = settings.questions()
    run = create_eval_run(store, settings, name="toy", total=len(questions))
    notes: list[str] = []
    report = Evaluator(store, Pipeline(store, config), run, questions,
                       note=notes.append).execute()
    assert report.done == 3 and run.status == "finished"
    assert any("not nodes of this store" in n for n in notes)  # 12 and 7
    assert any("non-candidate" in n for n in notes)  # a1 is an author
    summary = summarize(store, find_eval_run(store, "toy"))
    assert summary["mode"].startswith("replay of column 'cypher'")
    rows = export_rows(store, find_eval_run(store, run.eval_id), with_variants=True)
    assert [r["question_id"] for r in rows] == ["0", "1", "2"]
    assert rows[0]["ranked"][0] == "p3" and rows[1]["ranked"][0] == "p2"
    # by hand: questions 0 and 1 have their one candidate gold answer first (author a1
    # is outside the candidate set, 12 and 7 are not nodes): hit, reciprocal rank and
    # recall 1 each; question 2 has no gold answer to find: 0 each
    for m in ("hit@1", "hit@5", "hit@20", "mrr", "recall@20"):
        assert summary["metrics"]["1-8"][m] == pytest.approx(2 / 3), m
    stored = dict(store.query("SELECT question_id, metrics FROM eval_results"))
    assert {q: json.loads(v) if isinstance(v, str) else v for q, v in stored.items()} == {
        "0": dict.fromkeys(METRICS, 1.0), "1": dict.fromkeys(METRICS, 1.0),
        "2": dict.fromkeys(METRICS, 0.0)}
    assert set(rows[0]["variants"]) == {"1+7", "1-5", "1-6", "1-7", "1-8", "alpha=0",
                                        "alpha=1", "l_max=1", "vss", "bm25", "hybrid",
                                        "af:paper", "af:hybrid"}
    # scope expansion went on until k=3 answers; Kipf's paper entered first (level 1)
    assert rows[0]["variants"]["1-5"]["ranked"][0] == "p3"
    assert sorted(rows[0]["variants"]["1-5"]["ranked"]) == ["p1", "p2", "p3"]


def _write_csv(path: Path, rows: list[list[str]]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path, "w", newline="", encoding="utf-8") as fh:
        csv.writer(fh).writerows(rows)


def test_stark_layout_splits_and_extras(tmp_path: Path) -> None:
    qa = tmp_path / "qa" / "prime"
    header = ["id", "query", "answer_ids", "query_type"]
    _write_csv(qa / "stark_qa" / "stark_qa.csv",
               [header] + [[str(i), f"question {i}", f"[{i}, {i + 100}]", "t"]
                           for i in range(10)])
    _write_csv(qa / "stark_qa" / "stark_qa_human_generated_eval.csv",
               [header, ["h1", "a human question", "[5]", "h"]])
    (qa / "split").mkdir()
    (qa / "split" / "test.index").write_text("7\n3\n\n9\n")
    test = load_questions(qa, split="test")
    assert [q.id for q in test] == ["7", "3", "9"]
    assert test[0].answer_ids == ("7", "107") and test[0].extras == {"query_type": "t"}
    assert [q.id for q in load_questions(qa / "stark_qa", split="test")] == ["7", "3", "9"]
    assert [q.id for q in load_questions(qa, split="human")] == ["h1"]
    assert len(load_questions(qa)) == 10
    sample = load_questions(qa, sample=4, seed=3)
    assert sample == load_questions(qa, sample=4, seed=3) and len(sample) == 4
    assert load_questions(qa, sample=4, seed=3, limit=2) == sample[:2]
    with pytest.raises(AfrError, match="val.index"):
        load_questions(qa, split="val")
    with pytest.raises(AfrError, match="unknown split"):
        load_questions(qa, split="dev")
    (qa / "split" / "train.index").write_text("1\n99\n")
    with pytest.raises(AfrError, match="not in the QA file"):
        load_questions(qa, split="train")


def test_duplicate_question_ids_are_refused(tmp_path: Path) -> None:
    path = tmp_path / "q.csv"
    _write_csv(path, [["id", "query", "answer_ids"], ["1", "a", "[1]"], ["1", "b", "[2]"]])
    with pytest.raises(AfrError, match="duplicate question id"):
        load_questions(path)


def test_settings_survive_the_store(tmp_path: Path) -> None:
    settings = EvalSettings(source="x", split="test", limit=5, sample=9, seed=2,
                            replay="cypher", sweeps={"alpha": [0.5]}, concurrency=3,
                            ask=to_dict(settings_of(ask__k=7, rerank__method="listwise")))
    again = EvalSettings.from_dict(json.loads(json.dumps(settings.__dict__)))
    assert again == settings
    resumed = with_stored(Settings(), again.ask)
    assert resumed.ask.k == 7 and resumed.rerank.method == "listwise"
