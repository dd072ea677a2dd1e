"""Batch evals on Spark: the reads of one statement text run as ONE statement, lifted over
a table of the callers' parameters (afr/store/spark_lift.py, issue 24 item 3), not one
analysis and one union branch per question. Each caller gets the rows, in the order,
or the error it would have got alone: an empty result, NULL parameters, a LIMIT per
caller, an aggregate over no rows. The union by result shape (tests/test_spark_union.py)
stays for statements that cannot be lifted; whole evals against DuckDB's lists:
tests/test_same_answers.py."""

from __future__ import annotations

import threading

import pytest

from afr.store.base import render_template
from afr.store.dialect import SPARK
from afr.store.spark_lift import lift

ROWS = [(1, "a", "x"), (2, "b", "x"), (3, "c", "y"), (4, "d", "y"), (5, "a", "y")]

# BM25's form: a DISTINCT explode of a parameter, an aggregate without GROUP BY over a
# parameter's types (one row alone, even over no rows), a join and a cross join of
# dependent CTEs, a LIMIT per caller in an IN subquery, an IN of a parameter's values
# under an OR, an order kept at the top
SCORED = """
WITH q AS (SELECT DISTINCT EXPLODE(CAST(:names AS ARRAY<STRING>)) AS name),
st AS (SELECT SUM(id) AS total, MAX(id) * 2 AS top FROM lift_t
       WHERE grp IN (SELECT EXPLODE(CAST(:grps AS ARRAY<STRING>)))),
hits AS (SELECT t.id, t.name, st.total, st.top, COUNT(*) AS n FROM lift_t AS t
         JOIN q ON q.name = t.name CROSS JOIN st GROUP BY t.id, t.name, st.total, st.top)
SELECT id, name, total, top, n FROM hits
WHERE id IN (SELECT id FROM hits ORDER BY id DESC LIMIT :k)
   OR id IN (SELECT EXPLODE(CAST(:also AS ARRAY<BIGINT>)))
ORDER BY total DESC NULLS LAST, id
"""
SCORED_CALLS = [
    {"names": ["a", "b"], "grps": ["x"], "k": 2, "also": [1]},
    {"names": ["a", "c", "d"], "grps": ["y", "x"], "k": 1, "also": []},
    {"names": ["nothing"], "grps": ["x"], "k": 3, "also": [2]},  # an empty result
    {"names": ["a", "d"], "grps": None, "k": 5, "also": None},  # NULLs: total NULL
    {"names": ["b", "c"], "grps": ["none"], "k": 0, "also": [3, None]},
]
# a LIMIT at the top, per caller; a NULL compared; a LIMIT Spark refuses (that caller's
# own error)
TOP = "SELECT id, name FROM lift_t WHERE grp = :g OR :g IS NULL ORDER BY id DESC LIMIT :k"
TOP_CALLS = [{"g": "x", "k": 1}, {"g": "y", "k": 2}, {"g": None, "k": 3}, {"g": "z", "k": 4},
             {"g": "y", "k": -1}]
# no order: the same rows, in an order SQL does not promise
DETAILS = "SELECT id, name FROM lift_t WHERE id IN (SELECT EXPLODE(CAST(:ids AS ARRAY<BIGINT>)))"
DETAILS_CALLS = [{"ids": [1, 3]}, {"ids": []}, {"ids": [5, 2, 2]}, {"ids": None}]


@pytest.fixture
def store(spark_store):
    spark_store.execute("CREATE TABLE lift_t (id BIGINT, name STRING, grp STRING)")
    spark_store.execute("INSERT INTO lift_t VALUES " + ", ".join(
        f"({i}, '{n}', '{g}')" for i, n, g in ROWS))
    spark_store.question_batch = spark_store.gatherer.batch = 16  # as an eval's batch
    spark_store.gatherer.window_s = 60  # only "every thread waits" sets a group off
    return spark_store


def _outcome(store, sql, params):
    try:
        columns, rows = store.query_with_columns(sql, params)
    except Exception as exc:  # noqa: BLE001 - the caller's own error, compared
        return type(exc).__name__, str(exc)
    return columns, [tuple(r) for r in rows]


class _Counting:
    """The store's Spark session, counting the statements it analyses (``sql``)."""

    def __init__(self, spark) -> None:
        self.spark, self.analysed = spark, 0

    def sql(self, *args, **kwargs):
        self.analysed += 1
        return self.spark.sql(*args, **kwargs)

    def __getattr__(self, name: str):
        return getattr(self.spark, name)


def _together(store, calls: list[tuple[str, dict]]) -> tuple[list, dict]:
    """Each read in a joined thread of its own, at once: what each got, how many
    statements Spark analysed, and the unions run (each as its branches' callers)."""
    spark, unions = _Counting(store.spark), []
    union = store._union

    def spy(frames, callers=None):
        unions.append(callers or [[i] for i in range(len(frames))])
        return union(frames, callers)

    store.spark, store._union = spark, spy
    got: list = [None] * len(calls)
    start = threading.Barrier(len(calls))

    def run(i: int, sql: str, params: dict) -> None:
        with store.gathering():
            start.wait()
            got[i] = _outcome(store, sql, params)

    threads = [threading.Thread(target=run, args=(i, sql, params))
               for i, (sql, params) in enumerate(calls)]
    try:
        for t in threads:
            t.start()
        for t in threads:
            t.join(timeout=300)
    finally:
        store.spark = spark.spark
        del store._union
    assert not any(t.is_alive() for t in threads)
    return got, {"analysed": spark.analysed, "unions": unions}


def _last_job(store) -> int:
    return max(store.spark.sparkContext.statusTracker().getJobIdsForGroup(), default=-1)


def test_each_caller_gets_what_it_gets_alone_from_one_statement(store) -> None:
    calls = [(SCORED, p) for p in SCORED_CALLS] + [(TOP, p) for p in TOP_CALLS] + [
        (DETAILS, p) for p in DETAILS_CALLS]
    alone = [_outcome(store, sql, params) for sql, params in calls]
    got, spied = _together(store, calls)
    for i, ((sql, params), mine, own) in enumerate(zip(calls, got, alone, strict=True)):
        if sql is DETAILS:
            mine, own = (mine[0], sorted(mine[1])), (own[0], sorted(own[1]))
        assert mine == own, (i, params)
    # the cases are real ones: rows, an empty list, NULLs in a padded aggregate, an error
    scored = got[:len(SCORED_CALLS)]
    assert scored[0][1] and scored[2][1] == [] and scored[3][1][0][2:4] == (None, None)
    assert scored[4][1] == [(3, "c", None, None, 1)]
    assert alone[len(SCORED_CALLS) + 4][0] == "StoreError"
    # a union per result shape: SCORED's, and TOP's with DETAILS' (the same columns),
    # one branch per text, lifted over its callers (the LIMIT Spark refuses ran alone)
    # (the spy sees callers by their place in the union, in order of arrival)
    branches = sorted(sorted(len(callers) for callers in union) for union in spied["unions"])
    assert branches == [[4, 4], [len(SCORED_CALLS)]]
    assert (store.lifted_runs, store.lifted_reads) == (3, len(calls) - 1)


def test_a_batch_of_one_text_is_analysed_once_not_per_question(store) -> None:
    # as an eval's BM25 step: twelve questions, the same text, values of the same types
    calls = [(SCORED, {"names": [n, "b"], "grps": [g], "k": k, "also": [k]})
             for n in "abcd" for g, k in (("x", 1), ("y", 2), ("x", 3))]
    alone = [_outcome(store, sql, params) for sql, params in calls]
    got, spied = _together(store, calls)
    assert got == alone
    # the first read's analysis (its result shape) and the lifted statement's: not
    # one per question, and one union of one branch
    assert spied["analysed"] == 2
    assert [[len(callers) for callers in union] for union in spied["unions"]] == [[len(calls)]]


def test_one_lifted_statement_runs_fewer_jobs_than_a_union(store) -> None:
    calls = [(SCORED, p) for p in SCORED_CALLS]
    before = _last_job(store)
    got, _ = _together(store, calls)
    lifted_jobs = _last_job(store) - before
    store._unlifted.add(SCORED)  # the same reads as a union of one branch each
    before = _last_job(store)
    again, spied = _together(store, calls)
    assert again == got
    assert spied == {"analysed": len(calls), "unions": [[[i] for i in range(len(calls))]]}
    assert 0 < lifted_jobs < _last_job(store) - before


@pytest.mark.parametrize(("template", "ctx"), [
    ("lexical/bm25.sql", {"types": True, "ids": False, "limit": True, "also": True}),
    ("lexical/bm25.sql", {"types": False, "ids": True, "limit": False, "also": False}),
    ("vss/topk.sql", {"types": True, "ids": True, "exclude": True, "dim": 4,
                      "variant": "doc"}),
    ("runlog/answer_details.sql", {}),
])
def test_the_evals_same_text_reads_are_lifted(template, ctx) -> None:
    lifted = lift(render_template(template, SPARK, **ctx)[0])
    assert lifted is not None and not lifted.shared


@pytest.mark.parametrize("sql", [
    "SELECT id FROM lift_t WHERE id > :lo UNION ALL SELECT id FROM lift_t",  # a set op
    "SELECT * FROM lift_t WHERE id > :lo",  # a star
    "SELECT COUNT(*) AS n FROM lift_t WHERE id > :lo",  # COUNT is 0 over no rows
    "SELECT COALESCE(SUM(id), 0) AS s FROM lift_t WHERE id > :lo",  # not NULL either
    "SELECT id FROM lift_t WHERE EXISTS (SELECT 1 FROM lift_t AS u WHERE u.id = :lo)",
    "SELECT t.id FROM lift_t AS t RIGHT JOIN (SELECT :lo AS id) AS u ON u.id = t.id",
    "SELECT DISTINCT name FROM lift_t WHERE id > :lo ORDER BY name LIMIT 2",
    "SELECT id FROM lift_t WHERE id > :lo ORDER BY id LIMIT 2 OFFSET 1",
])
def test_what_cannot_be_lifted_exactly_is_refused(sql) -> None:
    assert lift(sql) is None
