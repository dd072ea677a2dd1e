"""Batch evals on Spark: the reads of one statement text run as ONE statement, lifted over
a table of the callers' parameters (afr/store/spark_lift.py, issue 24 item 3), not one
analysis and one union branch per question. Each caller gets the rows, in the order,
or the error it would have got alone: an empty result, NULL parameters, a LIMIT per
caller, an aggregate over no rows, UNION [ALL] branches, an EXISTS that matches nothing
for one caller and rows for another; afr's own groundings and links between answers
(a hop both ways, a "has some neighbour" check) among them. The union by result shape
(tests/test_spark_union.py) stays for statements that cannot be lifted; whole evals
against DuckDB's lists: tests/test_same_answers.py."""

from __future__ import annotations

import threading

import pytest

from afr.ground import GroundingQuery, GSymbol, GTriplet, compile_grounding
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
# UNION ALL in a CTE (one branch independent of the caller: its rows are every
# caller's), a plain UNION in a derived table (duplicates removed per caller), NOT
# EXISTS correlated with the outer row, an EXISTS of a dependent CTE under an OR
SETS = """
WITH picked AS (SELECT id, name FROM lift_t WHERE grp = :g
                UNION ALL SELECT id, name FROM lift_t WHERE id = :extra
                UNION ALL SELECT id, name FROM lift_t WHERE name = 'd'),
named AS (SELECT name FROM (SELECT name FROM picked UNION SELECT :also AS name) AS u)
SELECT p.id, p.name, n.name AS same FROM picked AS p JOIN named AS n ON n.name = p.name
WHERE NOT EXISTS (SELECT 1 FROM lift_t AS x WHERE x.id = p.id AND x.grp = :skip)
  AND (EXISTS (SELECT 1 FROM named AS m WHERE m.name = :need) OR p.id > :lo)
ORDER BY p.id, n.name
"""
SETS_CALLS = [
    {"g": "x", "extra": 3, "also": "b", "skip": "y", "need": "a", "lo": 0},
    {"g": "y", "extra": None, "also": "z", "skip": "x", "need": "none", "lo": 3},
    {"g": "none", "extra": 99, "also": "q", "skip": None, "need": "d", "lo": 0},
    {"g": "x", "extra": 1, "also": "a", "skip": "y", "need": "a", "lo": 0},
    {"g": "none", "extra": None, "also": None, "skip": "y", "need": "a", "lo": 0},  # none
]
# a graph for groundings: authors write papers (one edge stored the other way round),
# papers are in fields (one the other way round); paper 12 is in no field
NODES = [(1, "author"), (2, "author"), (3, "author"), (4, "author"), (10, "paper"),
         (11, "paper"), (12, "paper"), (13, "paper"), (20, "field"), (21, "field")]
EDGES = [(1, 10, "writes"), (2, 11, "writes"), (12, 3, "writes"), (4, 13, "writes"),
         (10, 20, "in_field"), (21, 11, "in_field"), (13, 20, "in_field")]


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


def test_unions_and_exists_give_each_caller_its_own_rows(store) -> None:
    calls = [(SETS, p) for p in SETS_CALLS]
    alone = [_outcome(store, sql, params) for sql, params in calls]
    got, spied = _together(store, calls)
    assert got == alone
    # real cases: a NOT EXISTS that drops rows, an EXISTS that matches nothing (the
    # second caller: only p.id > 3 kept), a name the plain UNION keeps once (the fourth:
    # "a" from two branches and :also), an empty result
    assert [len(rows) for _, rows in alone] == [2, 3, 1, 3, 0]
    assert alone[1][1] == [(4, "d", "d"), (4, "d", "d"), (5, "a", "a")]
    assert alone[3][1] == [(1, "a", "a"), (1, "a", "a"), (2, "b", "b")]
    assert [[len(callers) for callers in union] for union in spied["unions"]] == [
        [len(calls)]]
    assert (store.lifted_runs, store.lifted_reads) == (1, len(calls))


def _graph(store) -> None:
    store.execute("CREATE TABLE nodes (id BIGINT, type STRING)")
    store.execute("INSERT INTO nodes VALUES " + ", ".join(f"({i}, '{t}')" for i, t in NODES))
    store.execute("CREATE TABLE edges (src BIGINT, dst BIGINT, type STRING)")
    store.execute("INSERT INTO edges VALUES " + ", ".join(
        f"({s}, {d}, '{t}')" for s, d, t in EDGES))


def _grounding(sql, authors: tuple[int, ...], field: str) -> tuple[str, dict]:
    """Papers an author wrote (either way: a UNION ALL of the two) that are in some field
    (an EXISTS per way, under an OR): afr's compiled statement and its values."""
    symbols = [GSymbol("a", "author", candidates=authors), GSymbol("p", "paper"),
               GSymbol("f", field)]
    query = GroundingQuery({s.var: s for s in symbols}, (
        GTriplet("a", "writes", "p", directed=False), GTriplet("p", "in_field", "f")), "p")
    compiled = compile_grounding(query, schema_directed=False, sql=sql, l_max=10)
    (statement,) = compiled.statements
    return statement, compiled.params


def _links(sql) -> str:
    """The links between answers and a constant's candidates, both ways of an edge type."""
    ways = [{"match": "src", "out": "dst"}, {"match": "dst", "out": "src"}]
    (statement,) = sql("ground/witness.sql", adjacency=False, links=[
        {"cands": "cands0", "cand_lvls": "cand_lvls0",
         "walks": [{"edge": "edge0", "ways": ways}]}])
    return statement


def test_the_compiled_groundings_and_links_are_lifted() -> None:
    def sql(template: str, **ctx) -> list[str]:
        return render_template(template, SPARK, **ctx)

    for statement in (_grounding(sql, (1, 2), "field")[0], _links(sql)):
        assert "UNION ALL" in statement
        lifted = lift(statement)
        assert lifted is not None and not lifted.shared
    assert "EXISTS" in _grounding(sql, (1, 2), "field")[0]


def test_groundings_and_links_give_each_question_what_it_gets_alone(store) -> None:
    _graph(store)
    grounds = [_grounding(store.sql, authors, field) for authors, field in [
        ((1, 2), "field"), ((3,), "field"),  # paper 12: the EXISTS matches nothing
        ((4, 1), "field"), ((99,), "field"), ((1, 2), "venue")]]
    assert len({statement for statement, _ in grounds}) == 1  # one text, as in an eval
    links = _links(store.sql)
    calls = grounds + [(links, p) for p in [
        {"ids": [10, 11], "lvls": [1, 1], "cands0": [1, 2], "cand_lvls0": [1, 2],
         "edge0": "writes"},
        {"ids": [12], "lvls": [2], "cands0": [3, 4], "cand_lvls0": [1, 1], "edge0": "writes"},
        {"ids": [13], "lvls": [1], "cands0": [1], "cand_lvls0": [1], "edge0": "writes"},
        {"ids": [], "lvls": [], "cands0": [], "cand_lvls0": [], "edge0": "writes"}]]
    alone = [_outcome(store, sql, params) for sql, params in calls]
    got, spied = _together(store, calls)
    assert got == alone
    answers = [[row[0] for row in rows] for _, rows in alone]
    assert answers[:5] == [[10, 11], [], [13, 10], [], []]
    # links: paper 11's author 2 is out of its scope (level 2 > 1); one the other way
    # round; none; no answers
    assert [len(rows) for _, rows in alone[5:]] == [1, 1, 0, 0]
    assert sorted(len(callers) for union in spied["unions"] for callers in union) == [4, 5]
    assert (store.lifted_runs, store.lifted_reads) == (2, len(calls))


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
    # a set operation at the top, or other than a UNION, or ordered or limited as a whole
    "SELECT id FROM lift_t WHERE id > :lo UNION ALL SELECT id FROM lift_t",
    "SELECT id FROM (SELECT id FROM lift_t WHERE id > :lo EXCEPT SELECT 1) AS u",
    "SELECT id FROM (SELECT id FROM lift_t WHERE id > :lo INTERSECT SELECT 1) AS u",
    "SELECT id FROM (SELECT id FROM lift_t WHERE id > :lo UNION ALL SELECT 1 "
    "ORDER BY id LIMIT 2) AS u",
    "SELECT * FROM lift_t WHERE id > :lo",  # a star
    "SELECT COUNT(*) AS n FROM lift_t WHERE id > :lo",  # COUNT is 0 over no rows
    "SELECT COALESCE(SUM(id), 0) AS s FROM lift_t WHERE id > :lo",  # not NULL either
    # EXISTS elsewhere than in WHERE, over rows of its own (a LIMIT), or where the
    # outer query's anchor is the name of the subquery's own table
    "SELECT id, EXISTS (SELECT 1 FROM lift_t AS u WHERE u.id = :lo) AS e FROM lift_t",
    "SELECT id FROM lift_t WHERE EXISTS (SELECT id FROM lift_t AS u WHERE u.id > :lo "
    "ORDER BY id LIMIT 1)",
    "WITH d AS (SELECT id FROM lift_t WHERE grp = :g) SELECT t.id FROM d AS t "
    "WHERE EXISTS (SELECT 1 FROM lift_t AS t WHERE t.id = :lo)",
    "SELECT id FROM lift_t WHERE (SELECT MAX(id) FROM lift_t WHERE grp = :g) > id",
    "SELECT t.id FROM lift_t AS t RIGHT JOIN (SELECT :lo AS id) AS u ON u.id = t.id",
    "SELECT DISTINCT name FROM lift_t WHERE id > :lo ORDER BY name LIMIT 2",
    "SELECT id FROM lift_t WHERE id > :lo ORDER BY id LIMIT 2 OFFSET 1",
    "SELECT afr_read FROM lift_t WHERE id > :lo",  # the rewrite's own names
])
def test_what_cannot_be_lifted_exactly_is_refused(sql) -> None:
    assert lift(sql) is None
