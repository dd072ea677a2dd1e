"""Batch evals on Spark, the store's side (issue 24, item 3): the reads of questions asked
together run as one union when their result schemas (column names and types, from
Spark's analysis, which runs no job) are exactly equal, whatever their text; reads of
another shape never share that union; each caller gets its own rows in its own order.
The gatherer's own logic, without Spark: tests/test_spark_batch.py; whole evals against
DuckDB's lists: tests/test_same_answers.py."""

from __future__ import annotations

import threading

import pytest

ROWS = [(1, "a"), (2, "b"), (3, "c"), (4, "d")]

# the same shape (id BIGINT, name STRING), text of their own: an order and a limit each,
# a recursive CTE, a parameter of the same name bound to another value
SAME_SHAPE = {
    "desc": ("SELECT id, name FROM afr_u WHERE id > :lo ORDER BY id DESC LIMIT 2",
             {"lo": 1}, [(4, "d"), (3, "c")]),
    "recursive": ("WITH RECURSIVE r(id) AS (SELECT CAST(1 AS BIGINT) UNION ALL "
                  "SELECT id + 1 FROM r WHERE id < :lo) "
                  "SELECT r.id, u.name FROM r JOIN afr_u u ON u.id = r.id ORDER BY r.id",
                  {"lo": 3}, [(1, "a"), (2, "b"), (3, "c")]),
    "upper": ("SELECT id, upper(name) AS name FROM afr_u ORDER BY id LIMIT 1", None,
              [(1, "A")]),
}
# another shape each: a type (INT, not BIGINT), a column's name
OTHER_SHAPES = {
    "int": ("SELECT CAST(id AS INT) AS id, name FROM afr_u WHERE id <= 2 ORDER BY id", None,
            [(1, "a"), (2, "b")]),
    "label": ("SELECT id, name AS label FROM afr_u WHERE id >= 3 ORDER BY id DESC", None,
              [(4, "d"), (3, "c")]),
}


@pytest.fixture
def store(spark_store):
    spark_store.execute("CREATE TABLE afr_u (id BIGINT, name STRING)")
    spark_store.execute("INSERT INTO afr_u VALUES " + ", ".join(
        f"({i}, '{n}')" for i, n in ROWS))
    spark_store.question_batch = spark_store.gatherer.batch = 16  # as an eval's batch
    spark_store.gatherer.window_s = 60  # only "every thread waits" sets a group off
    return spark_store


def _last_job(store) -> int:
    """The newest Spark job's id (ids only grow; a job run since makes it larger)."""
    return max(store.spark.sparkContext.statusTracker().getJobIdsForGroup(), default=-1)


def _read_together(store, reads: dict[str, tuple]) -> tuple[dict, list[list]]:
    """Each read in a joined thread of its own, at once; what each got, and the unions
    run (each as the list of its branches' column names)."""
    unions: list[list] = []
    union = store._union

    def spy(frames, callers=None):
        unions.append([frame.columns for frame in frames])
        return union(frames, callers)

    store._union = spy
    got: dict[str, object] = {}
    start = threading.Barrier(len(reads))

    def run(name: str, sql: str, params) -> None:
        with store.gathering():
            start.wait()
            try:
                got[name] = store.query_with_columns(sql, params)
            except Exception as exc:  # noqa: BLE001 - the caller's own error, kept
                got[name] = exc

    threads = [threading.Thread(target=run, args=(name, sql, params))
               for name, (sql, params, _) in reads.items()]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=300)
    assert not any(t.is_alive() for t in threads)
    return got, unions


def test_analysis_gives_the_shape_and_runs_no_job(store) -> None:
    store.query("SELECT count(*) FROM afr_u")  # a job, so that there is a newest one
    before = _last_job(store)
    keys = {name: store._shape(sql, params)[0]
            for name, (sql, params, _) in {**SAME_SHAPE, **OTHER_SHAPES}.items()}
    assert _last_job(store) == before
    assert keys["desc"] == keys["recursive"] == keys["upper"] == (
        "shape", (("id", "bigint"), ("name", "string")))
    assert len({keys["desc"], keys["int"], keys["label"]}) == 3


def test_reads_of_one_shape_run_as_one_union_each_with_its_own_rows(store) -> None:
    got, unions = _read_together(store, {**SAME_SHAPE, **OTHER_SHAPES})
    for name, (_, _, rows) in {**SAME_SHAPE, **OTHER_SHAPES}.items():
        assert [tuple(r) for r in got[name][1]] == rows, name
    assert [type(v) for v in got["int"][1][0]] == [int, str]
    assert got["label"][0] == ["id", "label"]
    # one union of the three reads of one shape; the other shapes never in it
    assert unions == [[["id", "name"]] * 3]
    assert (store.gatherer.unions, store.gatherer.gathered) == (1, 3)


def test_reads_of_different_shape_are_never_unioned(store) -> None:
    got, unions = _read_together(store, OTHER_SHAPES)
    assert {name: [tuple(r) for r in got[name][1]] for name in got} == {
        name: rows for name, (_, _, rows) in OTHER_SHAPES.items()}
    assert unions == [] and store.gatherer.unions == 0


def test_a_union_runs_fewer_jobs_than_its_reads_alone(store) -> None:
    alone = _last_job(store)
    for sql, params, _ in SAME_SHAPE.values():
        store.query(sql, params)
    together = _last_job(store)
    _read_together(store, SAME_SHAPE)
    assert 0 < _last_job(store) - together < together - alone


def test_a_union_of_ordered_reads_is_one_job(store) -> None:
    # an ORDER BY over several partitions would sample its input in a job of its own,
    # one per branch: gathered reads shuffle into one partition
    reads = {"desc": SAME_SHAPE["desc"], "upper": SAME_SHAPE["upper"],
             "names": ("SELECT id, name FROM afr_u WHERE name <> :skip ORDER BY name DESC",
                       {"skip": "b"}, [(4, "d"), (3, "c"), (1, "a")])}
    before = _last_job(store)
    got, unions = _read_together(store, reads)
    assert {name: [tuple(r) for r in got[name][1]] for name in got} == {
        name: rows for name, (_, _, rows) in reads.items()}
    assert len(unions) == 1 and _last_job(store) - before == 1


def test_a_failing_branch_fails_only_its_caller(store) -> None:
    failing = ("SELECT id, name FROM afr_u WHERE assert_true(id < :lo) IS NULL ORDER BY id",
               {"lo": 2}, None)
    got, unions = _read_together(store, {"desc": SAME_SHAPE["desc"],
                                         "upper": SAME_SHAPE["upper"], "failing": failing})
    assert len(unions) == 1  # tried together, then each alone
    assert [tuple(r) for r in got["desc"][1]] == SAME_SHAPE["desc"][2]
    assert [tuple(r) for r in got["upper"][1]] == SAME_SHAPE["upper"][2]
    assert isinstance(got["failing"], BaseException)
