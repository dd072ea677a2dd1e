"""An eval's writes on Spark run no Spark job (issue 24, item 3): rows made of parameters,
and the rewrites of small tables (a DELETE, an UPDATE, the fold of MAX_PARTS parts), are
computed and written by DuckDB on the driver (afr.store.spark_driver), read back exactly
as Spark's own writes; and a batched eval that fails half-way leaves whole questions only,
no part nobody names, and resumes."""

from __future__ import annotations

import json
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest
from settings_util import settings_of

from afr.errors import AfrError
from afr.evaluate.session import run_eval
from afr.store.spark_tables import MAX_PARTS

pytest.importorskip("pyspark")

KEEP = "k-driver"  # rows written on the driver, by DuckDB
SPARK = "k-spark"  # the same rows written by Spark (the driver's way turned off)


def _jobs(store) -> int:
    tracker = store.spark.sparkContext.statusTracker()
    return max(tracker.getJobIdsForGroup(None), default=-1) + 1


@contextmanager
def _write_jobs(store, counted: list[int]) -> Iterator[None]:
    """Count in ``counted[0]`` the Spark jobs started while the store ran a statement that
    is not a query (a write runs under the store's lock: no read's job can start meanwhile)."""
    from afr.store import spark_store as module

    fetch = type(store)._fetch

    def counting(sql, params, max_rows=None):
        if isinstance(module._parsed(sql), module._QUERIES):
            return fetch(store, sql, params, max_rows)
        before = _jobs(store)
        try:
            return fetch(store, sql, params, max_rows)
        finally:
            counted[0] += _jobs(store) - before

    store._fetch = counting
    try:
        yield
    finally:
        del store._fetch


def _spark_writes_only(monkeypatch) -> None:
    from afr.store.spark_store import SparkStore

    monkeypatch.setattr(SparkStore, "_append_from_params", lambda *a, **k: False)
    monkeypatch.setattr(SparkStore, "_rewrite_on_driver", lambda *a, **k: False)


def _run_log(key: str) -> list[tuple[str, dict]]:
    """One ask's run-log and eval rows under ``key``: NULLs inside lists (Spark binds
    those as literals), text beyond ASCII, an id past 32 bits in a list with small ones
    (a list Spark cannot bind as it is), JSON text."""
    lists = {"node_ids": [2**33, 7], "sources": ["graph", None], "levels": [1, None],
             "scores": [0.25, None], "positions": [None, 2], "ranks": [1, 2],
             "provenance": [json.dumps({"why": "ü"}), json.dumps({})]}
    return [
        ("runlog/insert_run.sql", {
            "run_id": key, "question": "Qué ß 日本?", "mode": "offline",
            "config": json.dumps({"a": [1, 2]}), "target_type": None, "cypher": "MATCH (x)",
            "query_graph": json.dumps({}), "timings": json.dumps({"t": 0.5}),
            "llm_calls": 3, "llm_tokens": 2**33, "status": "ok", "warnings": "[]",
            "eval_id": "e", "question_id": "q1", "outcome": "answered", "fixes": "[]",
            "repair": None, "fallbacks": "[]"}),
        ("runlog/insert_symbols.sql", {"run_id": key, "symbols": ["x", "y"],
                                       "node_ids": [1, 2], "ranks": [1, 1],
                                       "levels": [0, 3], "scores": [1.5, -0.0]}),
        ("runlog/insert_answers.sql", {"run_id": key, **lists}),
        ("eval/insert_result.sql", {
            "eval_id": key, "question_id": "q1", "run_id": None, "ranked": '["a"]',
            "gold": "[]", "metrics": '{"hit@1": 1.0}', "error": None, "position": 0,
            "query": "q", "status": "ok", "seconds": 0.125, "timings": "{}",
            "llm_prompts": 0, "llm_new_calls": 0, "llm_tokens": 0, "outcome": "answered",
            "steps": None}),
        ("eval/insert_variants.sql", {"eval_id": key, "question_id": "q1",
                                      "variants": ["final", "bm25"],
                                      "ranked": ['["a"]', "[]"],
                                      "metrics": ['{"m": 1}', '{"m": 0}']}),
    ]


_READ_BACK = {  # table: (key column, the columns compared)
    "runs": ("run_id", "* EXCEPT (run_id, created_at)"),
    "run_symbols": ("run_id", "symbol, node_id, rank, level, score"),
    "run_answers": ("run_id", "* EXCEPT (run_id)"),
    "eval_results": ("eval_id", "* EXCEPT (eval_id)"),
    "eval_variants": ("eval_id", "* EXCEPT (eval_id)"),
}


def _rows(store, table: str, key: str) -> list[str]:
    column, picked = _READ_BACK[table]
    return sorted(map(repr, store.frame(
        f"SELECT {picked} FROM {table} WHERE {column} = :key", {"key": key}).collect()))


def test_rows_made_of_parameters_are_written_without_a_job_as_spark_writes_them(
        spark_store, monkeypatch) -> None:
    store = spark_store
    store.init()
    counted = [0]
    with _write_jobs(store, counted):
        for template, params in _run_log(KEEP):
            store.run(template, params)
    assert counted == [0]
    _spark_writes_only(monkeypatch)
    with _write_jobs(store, counted):
        for template, params in _run_log(SPARK):
            store.run(template, params)
    assert counted[0] > 0  # Spark's own way costs jobs: the count sees them
    for table in _READ_BACK:
        mine, sparks = _rows(store, table, KEEP), _rows(store, table, SPARK)
        assert mine == sparks and mine, table
    # the default fills in on the driver too, in Spark's clock (UTC)
    stamps = store.frame("SELECT run_id, created_at FROM runs").collect()
    times = {r[0]: r[1] for r in stamps}
    assert abs((times[KEEP] - times[SPARK]).total_seconds()) < 3600


def test_small_tables_are_rewritten_and_folded_without_a_job(spark_store) -> None:
    store = spark_store
    store.init()
    counted = [0]
    result = dict(_run_log("e")[3][1])
    with _write_jobs(store, counted):
        for i in range(MAX_PARTS + 6):  # a part each, folded once past MAX_PARTS
            store.run("eval/insert_result.sql", {**result, "question_id": f"q{i}"})
        parts = list(store.tables.table("eval_results").parts)
        # a question never asked before: nothing to delete, no part written
        store.run("eval/delete_question.sql", {"eval_id": "e", "question_id": "nope"})
        assert store.tables.table("eval_results").parts == parts
        store.run("eval/delete_question.sql", {"eval_id": "e", "question_id": "q3"})
        store.run("eval/insert_run.sql", {"eval_id": "e", "name": "n", "dataset": "d",
                                          "split": "s", "config": "{}", "status": "running",
                                          "metrics": None, "pid": 1, "host": "h"})
        store.run("eval/set_status.sql", {"eval_id": "e", "status": "finished"})
    assert counted == [0]
    assert len(parts) <= MAX_PARTS
    left = sorted(r[0] for r in store.query("SELECT question_id FROM eval_results"))
    assert left == sorted({f"q{i}" for i in range(MAX_PARTS + 6)} - {"q3"})
    assert store.query("SELECT status FROM eval_runs")[0][0] == "finished"


def test_a_column_added_after_a_part_reads_null_when_the_driver_rewrites(spark_store) -> None:
    store = spark_store
    store.init()
    store.execute("CREATE TABLE afr_t (a BIGINT)")
    store.execute("INSERT INTO afr_t (a) VALUES (1), (2)")
    store.execute("ALTER TABLE afr_t ADD COLUMN b STRING")
    counted = [0]
    with _write_jobs(store, counted):
        store.execute("DELETE FROM afr_t WHERE a = 1")  # no part has b yet
    assert store.query("SELECT a, b FROM afr_t") == [(2, None)]
    store.execute("INSERT INTO afr_t (a, b) VALUES (3, 'x')")
    with _write_jobs(store, counted):
        store.execute("UPDATE afr_t SET b = 'y' WHERE a = 2")
    assert counted == [0]
    assert sorted(store.query("SELECT a, b FROM afr_t")) == [(2, "y"), (3, "x")]


# -- a batched eval, whole -----------------------------------------------------------


@pytest.fixture(scope="module")
def eval_store(spark_warehouse: Path, tmp_path_factory: pytest.TempPathFactory):
    """A small synthetic SKB on Spark, loaded, embedded and indexed once."""
    import uuid

    from afr.embed import make_embedder
    from afr.lexical.index import build_lexical_index
    from afr.load import load_skb_dir
    from afr.store.spark_store import SparkStore
    from afr.synth import generate
    from afr.vectors import embed_store

    source = tmp_path_factory.mktemp("synth-writes") / "skb"
    generate(source, like="prime", nodes=200, questions=6, seed=5)
    url = f"spark://local[2]/w_{uuid.uuid4().hex[:12]}"
    store = SparkStore(url, warehouse=spark_warehouse)
    load_skb_dir(store, source, progress=False)
    embed_store(store, make_embedder("hash"), progress=False)
    build_lexical_index(store, progress=False)
    store.close()
    return url, source


def _batched(url: str, warehouse: Path):
    from afr.store.spark_store import SparkStore

    return SparkStore(url, warehouse=warehouse, batch=6, gather_ms=600_000)


def test_a_batched_eval_writes_without_a_job_and_a_failed_one_keeps_whole_questions(
        eval_store, spark_warehouse: Path, monkeypatch) -> None:
    url, source = eval_store
    config = settings_of(rerank__method="none", llm__offline=True,
                         vectors__exact_search=True)
    from afr.store.spark_store import SparkStore

    store = _batched(url, spark_warehouse)
    try:
        adopt, written = SparkStore._adopt_duckdb, []

        def failing(self, name, con, source_):
            if name == "eval_variants" and len(written) == 2:  # the third question's
                raise RuntimeError("disk full")
            adopt(self, name, con, source_)
            if name == "eval_variants":
                written.append(name)

        monkeypatch.setattr(SparkStore, "_adopt_duckdb", failing)
        with pytest.raises(AfrError, match="disk full"):
            run_eval(store, str(source), replay="cypher", settings=config, name="w",
                     methods="bm25")
        monkeypatch.setattr(SparkStore, "_adopt_duckdb", adopt)
        eval_id = store.query("SELECT eval_id FROM eval_runs")[0][0]
        variants = {}
        for question, variant in store.query("SELECT question_id, variant FROM eval_variants"):
            variants.setdefault(question, set()).add(variant)
        results = {r[0] for r in store.query("SELECT question_id FROM eval_results")}
        # whole questions only: each stored question with every variant, no other
        assert results == set(variants) and len(results) == 2
        assert len({frozenset(v) for v in variants.values()}) == 1
        named = {p for t in store.tables.tables.values() for p in t.parts}
        on_disk = {f"{d.parent.name}/{d.name}" for d in store.tables.root.glob("*/*")
                   if d.is_dir() and d.parent.name != "vectors"}
        assert on_disk == named
        counted = [0]
        with _write_jobs(store, counted):
            session = run_eval(store, resume=eval_id, settings=config)
        assert session.report.done == session.questions == 6
        assert session.report.asked == 4  # the two stored ones are kept
        assert counted == [0]
        asked = [r[0] for r in store.query("SELECT question_id FROM eval_results")]
        assert sorted(asked) == sorted(set(asked)) and len(asked) == 6
    finally:
        store.close()
