"""The same SKB gives the same answers on DuckDB and PostgreSQL (issue 10, item 4), and on
Spark (issue 24, item 4: on fewer questions, Spark being slow per statement).

PostgreSQL keeps attributes as JSONB, which orders object keys its own way; node
documents list attributes in sorted order, so both stores build byte-identical documents,
the built-in embedder turns them into identical vectors, and in exact mode
(``AskConfig.exact_search``: no HNSW index) every ranked list of an evaluation is the same.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from settings_util import settings_of

from afr.cypher.model import Condition
from afr.embed import make_embedder
from afr.evaluate.session import run_eval
from afr.lexical.bm25 import _bm25_sql
from afr.lexical.index import build_lexical_index
from afr.lexical.memory import memory_postings, write_postings_file
from afr.load import load_skb_dir
from afr.resources import demo_skb_dir
from afr.retrieval.filters import AttributeCatalog, filter_nodes
from afr.settings import BM25Settings
from afr.store import Store
from afr.store.dialect import SPARK
from afr.synth import generate
from afr.vectors import build_documents, embed_store
from afr.vectors.documents import NodeInfo, base_document
from afr.vectors.similarity import build_similarity_graph


def _ranked_lists(store: Store) -> dict[tuple[str, str, str], list[str]]:
    """(run name, question, variant) → ranked list, for every eval run of the store."""
    rows = store.query("SELECT r.name, v.question_id, v.variant, v.ranked "
                       "FROM eval_variants v JOIN eval_runs r ON r.eval_id = v.eval_id")
    return {(r[0], r[1], r[2]): list(r[3]) for r in rows}


def _vectors(store: Store, variant: str) -> dict[int, np.ndarray]:
    (stmt,) = store.sql("embed/all_vectors.sql", variant=variant)
    return {int(r.node_id): np.asarray(r.vec, dtype=np.float32) for r in store.query(stmt)}


def test_attributes_are_listed_in_sorted_order() -> None:
    one = NodeInfo(1, "t", "x", None, {"b": 1, "a": {"d": 2, "c": 3}}, [])
    two = NodeInfo(1, "t", "x", None, {"a": {"c": 3, "d": 2}, "b": 1}, [])
    assert base_document(one, {}) == base_document(two, {}) == "x (t)\na: c: 3, d: 2\nb: 1"


@pytest.fixture(scope="module")
def synth_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("synth-same") / "skb"
    generate(out, like="prime", nodes=2000, questions=200, seed=3)
    return out


@pytest.mark.parametrize("skb", ["demo", "synth"])
def test_both_stores_give_identical_documents_vectors_and_ranked_lists(
        skb: str, duck_store, pg_store, synth_dir: Path) -> None:
    source = demo_skb_dir() if skb == "demo" else synth_dir
    stores = (duck_store, pg_store)
    for store in stores:
        load_skb_dir(store, source, progress=False)
        embed_store(store, make_embedder("hash"), progress=False)
        build_lexical_index(store, progress=False)  # as `afr embed` does
        build_similarity_graph(store, make_embedder("hash"), progress=False)  # for SAGE
    ids = [int(r[0]) for r in duck_store.query("SELECT id FROM nodes ORDER BY id")]
    for variant in ("doc", "doc_rel"):
        duck_docs, pg_docs = (build_documents(s, ids, variant) for s in stores)
        assert [i for i in ids if duck_docs[i] != pg_docs[i]] == []
        duck_vecs, pg_vecs = (_vectors(s, variant) for s in stores)
        assert duck_vecs.keys() == pg_vecs.keys() == set(ids)
        assert [i for i in ids if not np.array_equal(duck_vecs[i], pg_vecs[i])] == []
    lists = []
    for store in stores:
        config = settings_of(rerank__method="none", llm__offline=True, vectors__exact_search=True)
        session = run_eval(store, str(source), replay="cypher", settings=config, name="af")
        assert session.report.done == session.questions
        # every other method, on fewer questions (each asks them again)
        session = run_eval(store, str(source), replay="cypher", settings=config,
                           name="methods", limit=25, sweeps=["method=kar,sage,af+sage"])
        assert session.report.done == session.questions
        lists.append(_ranked_lists(store))
    duck_lists, pg_lists = lists
    assert duck_lists.keys() == pg_lists.keys() and len(duck_lists) >= 5 * 20
    differ = [key for key in duck_lists if duck_lists[key] != pg_lists[key]]
    detail = [(key, duck_lists[key][:8], pg_lists[key][:8]) for key in differ[:3]]
    assert differ == [], f"{len(differ)} of {len(duck_lists)} ranked lists differ: {detail}"
    assert sum(bool(r) for r in duck_lists.values()) > 0.9 * len(duck_lists)
    asked = sum(v == "1-8" for name, _, v in duck_lists if name == "methods")
    assert asked == min(25, session.questions)
    for method in ("kar", "sage", "af+sage"):
        assert sum(bool(r) for (_, _, v), r in duck_lists.items()
                   if v == f"method={method}") == asked


@pytest.fixture(scope="module")
def small_synth_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("synth-spark") / "skb"
    generate(out, like="prime", nodes=300, questions=20, seed=3)
    return out


# Spark runs a statement as a job (~0.2 s warm on an idle machine, an ask dozens of them
# when asked alone): the comparison asks one question alone (af), and a batch of a few
# (every method).
SPARK_METHOD_QUESTIONS = 1
# Batch mode (issue 24, item 3): this many questions asked at once, every method.
SPARK_BATCH = 4


def _spark_jobs(store: Store) -> int:
    """Spark jobs this process has started so far (job ids count up from 0); 0 on the
    other stores."""
    if store.dialect != SPARK:
        return 0
    tracker = store.spark.sparkContext.statusTracker()
    return max(tracker.getJobIdsForGroup(None), default=-1) + 1


@pytest.mark.parametrize("skb", ["demo", "synth"])
def test_spark_gives_duckdbs_documents_vectors_and_ranked_lists(
        skb: str, duck_store, spark_store, spark_warehouse: Path, small_synth_dir: Path,
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    source = demo_skb_dir() if skb == "demo" else small_synth_dir
    stores = (duck_store, spark_store)
    for store in stores:
        load_skb_dir(store, source, progress=False)
        embed_store(store, make_embedder("hash"), progress=False)
        build_lexical_index(store, progress=False)
        build_similarity_graph(store, make_embedder("hash"), progress=False)
    ids = [int(r[0]) for r in duck_store.query("SELECT id FROM nodes ORDER BY id")]
    for variant in ("doc", "doc_rel"):
        duck_docs, spark_docs = (build_documents(s, ids, variant) for s in stores)
        assert [i for i in ids if duck_docs[i] != spark_docs[i]] == []
        duck_vecs, spark_vecs = (_vectors(s, variant) for s in stores)
        assert duck_vecs.keys() == spark_vecs.keys() == set(ids)
        assert [i for i in ids if not np.array_equal(duck_vecs[i], spark_vecs[i])] == []
    config = settings_of(rerank__method="none", llm__offline=True, vectors__exact_search=True)
    jobs = {}
    # A question asked alone with af (and the jobs it costs), on the demo only: the
    # batches below ask every method (the Spark tests' time is jobs).
    for store in stores if skb == "demo" else ():
        started = _spark_jobs(store)
        session = run_eval(store, str(source), replay="cypher", settings=config,
                           name="alone", limit=SPARK_METHOD_QUESTIONS)
        assert session.report.done == session.questions
        jobs[store.dialect, "alone"] = (_spark_jobs(store) - started) / SPARK_METHOD_QUESTIONS
    if skb == "demo":
        _same_attribute_filters(duck_store, spark_store, tmp_path)
        _spark_bm25_from_its_file_is_its_sqls(spark_store, monkeypatch)
    # The same store asking SPARK_BATCH questions at once, a read they send together run
    # as one job; a long window: they gather whatever the machine's load
    from afr.store.spark_store import SparkStore

    batched = SparkStore(spark_store.url, warehouse=spark_warehouse, batch=SPARK_BATCH,
                         gather_ms=600_000)
    stores = (duck_store, batched)
    try:
        for store in stores:
            started = _spark_jobs(store)
            session = run_eval(store, str(source), replay="cypher", settings=config,
                               name="batch", limit=SPARK_BATCH,
                               sweeps=["method=kar,sage,af+sage"])
            assert session.report.done == session.questions == SPARK_BATCH
            jobs[store.dialect, "batch"] = (_spark_jobs(store) - started) / SPARK_BATCH
        assert batched.gatherer.gathered > 0
        if skb == "demo":  # every method batched: under half the jobs of af's ask alone
            alone, batch = jobs[SPARK, "alone"], jobs[SPARK, "batch"]
            assert batch < alone / 2, jobs
        lists = [_ranked_lists(store) for store in stores]
        spark_runs = batched.query("SELECT count(*) FROM runs")[0][0]
    finally:
        batched.close()
    duck_lists, spark_lists = lists
    assert duck_lists.keys() == spark_lists.keys() and len(duck_lists) >= 5 * SPARK_BATCH
    differ = [key for key in duck_lists if duck_lists[key] != spark_lists[key]]
    detail = [(key, duck_lists[key][:8], spark_lists[key][:8]) for key in differ[:3]]
    assert differ == [], f"{len(differ)} of {len(duck_lists)} ranked lists differ: {detail}"
    assert sum(bool(r) for r in duck_lists.values()) > 0.8 * len(duck_lists)
    # the run log on Spark holds every ask, readable as on DuckDB
    assert spark_runs == duck_store.query("SELECT count(*) FROM runs")[0][0] > 0


def _spark_bm25_from_its_file_is_its_sqls(spark_store: Store,
                                          monkeypatch: pytest.MonkeyPatch) -> None:
    """BM25 on Spark reads the postings file `afr index` wrote (each BM25 statement is a
    job of several stages), with the rows of its SQL; past the store's limit of postings
    no file is written and BM25 stays in SQL."""
    mapped = memory_postings(spark_store)
    assert mapped is not None
    params = BM25Settings()
    for terms, types, ids, k, also in [
            (["json", "decod", "error"], None, None, 10, [1, 2]),
            (["inherit", "valueerror", "modul"], ["class"], list(range(0, 3000, 7)), None,
             None)]:
        want = [(int(n), round(float(v), 9)) for n, v in
                _bm25_sql(spark_store, terms, params, types, ids, k, also)]
        got = mapped.bm25(terms, params, types=types, ids=ids, k=k, also=also)
        assert want and [(n, round(v, 9)) for n, v in got] == want, terms
    monkeypatch.setattr(spark_store, "postings_file_max", 100)
    assert not write_postings_file(spark_store)


# Every kind of attribute condition on the demo's attributes (numbers, booleans, dates,
# years, and lists of text: the demo's lists hold one element each, the case Spark's JSON
# wildcard reads differently), as (node type, conditions, nodes DuckDB finds).
_FILTERS = (
    ("function", [Condition("num_parameters", ">", 5)], 48),
    ("function", [Condition("num_parameters", "IN", (0, 7))], 256),
    ("function", [Condition("is_async", "=", True), Condition("lines_of_code", "<", 40)], 7),
    ("module", [Condition("snapshot_release_date", "<", "2022-10-25")], 411),
    ("class", [Condition("snapshot_release_date", "=", 2022)], 1356),
    ("class", [Condition("decorators", "=", "dataclass")], 2),
    ("class", [Condition("decorators", "IN", ("total_ordering", "final"))], 3),
    ("function", [Condition("decorators", "CONTAINS", "WRAPS")], 3),
    ("class", [Condition("decorators", "STARTS WITH", "_s")], 6),
    ("function", [Condition("decorators", "=~", "^functools\\.")], 2),
)
# Questions whose Cypher filters on attributes (a number; text inside a list attribute).
_FILTER_QUESTIONS = (
    "id,query,answer_ids,target_type,cypher\n"
    'f1,Which functions of difflib take more than 5 parameters?,"[""function:difflib.'
    'context_diff"", ""function:difflib.unified_diff""]",function,"MATCH (c1:module '
    '{name: ""difflib""})-[:module_defines_function]->(y:function) '
    'WHERE y.num_parameters > 5 RETURN y.name"\n'
    'f2,Which classes have an ordering decorator?,"[""class:tracemalloc.Frame""]",'
    'class,"MATCH (y:class) WHERE y.decorators CONTAINS ""ordering"" RETURN y.name"\n')


def _same_attribute_filters(duck_store: Store, spark_store: Store, folder: Path) -> None:
    """Attribute filters select the same nodes on Spark as on DuckDB, and questions that
    filter on attributes get the same ranked lists."""
    stores = (duck_store, spark_store)
    catalogs = [AttributeCatalog.from_store(s) for s in stores]
    for node_type, conditions, count in _FILTERS:
        duck, spark = (filter_nodes(s, node_type, conditions, c)
                       for s, c in zip(stores, catalogs, strict=True))
        assert duck.unapplied == spark.unapplied == [], conditions
        assert len(duck.ids) == count and spark.ids == duck.ids, conditions
    questions = folder / "filter_questions.csv"
    questions.write_text(_FILTER_QUESTIONS)
    config = settings_of(rerank__method="none", llm__offline=True, vectors__exact_search=True)
    lists = []
    for store in stores:
        session = run_eval(store, str(questions), replay="cypher", settings=config,
                           name="filters")
        assert session.report.done == session.questions == 2
        lists.append({k: v for k, v in _ranked_lists(store).items() if k[0] == "filters"})
    assert lists[0] == lists[1] and len(lists[0]) >= 2 and all(lists[0].values())
