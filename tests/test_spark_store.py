"""The Spark store (issue 24): the same store interface on Spark SQL, in one ``local[2]``
session for the whole test session (``spark_warehouse`` in conftest.py).

What is checked here: the URL rule and its one-line errors (without Spark); writes
(INSERT, DELETE, UPDATE, DDL) on Parquet parts with commit and rollback; a failed load
leaves the previous SKB; JSON columns come back decoded; read-only stores run queries only;
a newer schema version is refused; ``afr info``, ``afr sql`` and ``afr runs`` through the
CLI; pyspark is never imported by a command that opens no Spark store. The ranked lists of
an evaluation on Spark against DuckDB's: tests/test_same_answers.py.
"""

from __future__ import annotations

import json
import logging
import subprocess
import sys
from pathlib import Path

import pytest
from afr.cli.main import cli
from click.testing import CliRunner
from skbutil import TOY_SCHEMA, toy_skb, write_skb

from afr.embed import make_embedder
from afr.errors import LoadError, StoreError
from afr.load import load_skb_dir
from afr.settings import StoreSettings
from afr.store import open_store, store_kind
from afr.store.dialect import SPARK
from afr.store.spark_store import JSON_LIST_MIN, _bind, _is_show, _parsed, parse_spark_url
from afr.vectors import embed_store


def test_the_url_rule() -> None:
    assert store_kind("spark://local[2]/kb") == "spark"
    assert parse_spark_url("spark://local[2]/kb") == ("local[2]", "kb")
    assert parse_spark_url("spark://local/kb") == ("local", "kb")
    assert parse_spark_url("spark://master.example:7077/kb") == (
        "spark://master.example:7077", "kb")
    for bad in ("spark://local[2]", "spark://local[2]/", "spark://local[2]/a-b",
                "spark://local[2]/kb/x"):
        with pytest.raises(StoreError, match="spark://local"):
            parse_spark_url(bad)


def test_portable_statements_are_finished_for_spark() -> None:
    (zipped,) = SPARK.finish("SELECT $id, unnest(CAST($a AS BIGINT[])) AS x, "
                             "CAST(unnest(CAST($b AS VARCHAR[])) AS JSON) AS y")
    # one generator: the first list's positions index every list (1-based element_at)
    assert zipped.count("POSEXPLODE") == 1 and "EXPLODE(" not in zipped.replace("POSEXPLODE", "")
    assert "ELEMENT_AT(CAST(:a AS ARRAY<BIGINT>), afr_pos + 1) AS x" in zipped
    assert "CAST(ELEMENT_AT(CAST(:b AS ARRAY<STRING>), afr_pos + 1) AS STRING) AS y" in zipped
    assert SPARK.finish("CREATE INDEX i ON t (a); DROP INDEX IF EXISTS i") == []
    (vec,) = SPARK.finish("CREATE TABLE e (node_id BIGINT, vec FLOAT[8] NOT NULL, c JSON)")
    assert "vec ARRAY<FLOAT> NOT NULL" in vec and "c STRING" in vec
    (median,) = SPARK.finish("SELECT quantile_cont(x, 0.5) FROM t")
    assert median == "SELECT PERCENTILE(x, 0.5) FROM t"
    # a JSON list's elements: read from the list itself (a wildcard's one match unwraps)
    (elements,) = SPARK.finish(
        "SELECT unnest(CAST(json_extract_string(a, '$.\"k\"[*]') AS VARCHAR[])) FROM t")
    assert "FROM_JSON(GET_JSON_OBJECT(a, '$.k'), 'ARRAY<STRING>')" in elements


def test_long_lists_are_bound_as_one_json_text() -> None:
    """pyspark binds a list as a literal array, one py4j call per value: a long list of
    one plain type goes as one JSON text the statement parses instead."""
    long_ids, long_words = list(range(JSON_LIST_MIN + 1)), ["a"] * (JSON_LIST_MIN + 1)
    sql, args = _bind("SELECT :ids, :words, :few, :mixed",
                      {"ids": long_ids, "words": long_words, "few": [1, 2],
                       "mixed": [1, "a"] * JSON_LIST_MIN})
    assert sql == ("SELECT from_json(:ids, 'array<bigint>'), "
                   "from_json(:words, 'array<string>'), :few, :mixed")
    assert json.loads(args["ids"]) == long_ids and args["few"] == [1, 2]
    assert isinstance(args["mixed"], list)


def test_a_short_list_of_integers_past_32_bits_is_bound_as_json() -> None:
    """pyspark types a list's values one by one (INT, BIGINT) and Spark refuses the
    mixed array as an argument: such a list goes as JSON of BIGINTs."""
    sql, args = _bind("SELECT :mixed, :low, :small, :nulls",
                      {"mixed": [7, 2**31], "low": [-2**31 - 1, 1], "small": [7, 2**31 - 1],
                       "nulls": [2**31, None]})
    assert sql == ("SELECT from_json(:mixed, 'array<bigint>'), "
                   "from_json(:low, 'array<bigint>'), :small, ARRAY(2147483648, NULL)")
    assert json.loads(args["mixed"]) == [7, 2**31] and args["small"] == [7, 2**31 - 1]


def test_a_local_masters_python_workers_run_afrs_own_python(spark_store) -> None:
    """Embedding and BM25 postings run in Spark's Python workers: on a local master they
    run the driver's interpreter (afr from a virtualenv that is not activated finds its
    packages there), not the first `python3` on PATH."""
    def worker_python(frames):  # nested: pickled by value, run in the worker
        import sys

        import pandas as pd

        for _ in frames:
            yield pd.DataFrame({"python": [sys.executable]})

    rows = spark_store.spark.range(1).mapInPandas(worker_python, "python string").collect()
    assert [r.python for r in rows] == [sys.executable]


def test_a_long_list_reads_back_in_order(spark_store) -> None:
    ids = [7 * i - 3 for i in range(JSON_LIST_MIN * 3)]
    words = [f"w{i}" for i in range(JSON_LIST_MIN + 5)]
    row = spark_store.query(
        "SELECT size(CAST(:ids AS ARRAY<BIGINT>)) AS n, element_at(:ids, 2) AS second, "
        "aggregate(:ids, CAST(0 AS BIGINT), (a, x) -> a + x) AS total, "
        "element_at(:words, -1) AS last", {"ids": ids, "words": words})[0]
    assert tuple(row) == (len(ids), ids[1], sum(ids), words[-1])


def test_an_unreachable_master_is_one_line(tmp_path: Path) -> None:
    # Port 1 on this machine: nothing listens there; refused at once, no JVM started.
    skb = toy_skb(tmp_path / "skb")
    result = CliRunner().invoke(cli, ["--db", "spark://127.0.0.1:1/kb", "load", str(skb)],
                                env={"AFR_SPARK_WAREHOUSE": str(tmp_path / "wh")})
    assert result.exit_code != 0
    assert result.output.startswith("afr: error: ")
    assert "cannot reach the Spark master spark://127.0.0.1:1" in result.output
    assert len(result.output.strip().splitlines()) == 1
    assert not (tmp_path / "wh").exists()  # a failed command leaves nothing behind
    # no store there yet: said as much, on one line, before any Spark is started
    result = CliRunner().invoke(cli, ["--db", "spark://local[2]/kb", "info"],
                                env={"AFR_SPARK_WAREHOUSE": str(tmp_path / "wh")})
    assert result.output == (f"afr: error: no Spark store at {tmp_path / 'wh' / 'kb'}; "
                             "create one with \"afr load DIR --db 'spark://local[2]/kb'\"\n")


# What `afr sql` must never run on Spark: Java calls, scripts, files read as tables or by
# functions, names given as text; each form also nested, quoted or in upper case.
_REFUSED = {
    "SELECT reflect('java.util.UUID', 'randomUUID')": "reflect(): it calls Java methods",
    "SELECT JAVA_METHOD('java.lang.System', 'exit', 1)": "java_method()",
    "SELECT * FROM (SELECT try_reflect('a', 'b') AS x)": "try_reflect()",
    "WITH x AS (SELECT `reflect`('a', 'b')) SELECT * FROM x": "reflect()",
    "SELECT * FROM parquet.`/etc`": "reading files as a table (parquet",
    "SELECT n.id FROM nodes n JOIN json.`/tmp/x` j ON TRUE": "(json.",
    "DESCRIBE csv.`/etc/passwd`": "(csv.",
    "SELECT TRANSFORM(id) USING 'cat' AS (x) FROM nodes": "TRANSFORM",
    "SELECT from_protobuf(name, 'M', '/tmp/d.desc') FROM nodes": "from_protobuf(): it reads",
    "SELECT * FROM read_files('/etc')": "read_files()",
    "SELECT * FROM IDENTIFIER('nodes')": "identifier()",
}
# ... and statements that are no queries, refused before any of them runs.
_NOT_QUERIES = {
    "LOAD DATA LOCAL INPATH '/etc/passwd' INTO TABLE nodes": "not LOAD",
    "ADD JAR /tmp/x.jar": "not ADD",
    "CREATE FUNCTION f AS 'x.Y' USING JAR '/tmp/x.jar'": "not CREATE",
    "EXECUTE IMMEDIATE 'SELECT 1'": "not EXECUTE",
    "SET spark.sql.runSQLOnFiles=true": "not SET",
    "SELECT IDENTIFIER('reflect')('a', 'b')": "this one does not parse",
}


def test_unsafe_sql_is_refused_before_spark_sees_it() -> None:
    from afr.store.spark_guard import refuse_unsafe
    from afr.store.spark_store import _parsed

    for sql, reason in _REFUSED.items():
        with pytest.raises(StoreError, match="afr sql on Spark refuses") as refused:
            refuse_unsafe(_parsed(sql))
        assert reason in str(refused.value), sql
    for sql in ("SELECT input_file_name(), id FROM nodes", "SELECT * FROM range(3)",
                "SELECT upper(name), get_json_object(attrs, '$.x') FROM nodes"):
        refuse_unsafe(_parsed(sql))  # harmless: no error


def test_sqlglot_keeps_quiet_about_a_show(caplog: pytest.LogCaptureFixture) -> None:
    # sqlglot warns (on stderr, outside pytest) of a statement it keeps as a command
    with caplog.at_level(logging.WARNING):
        assert _is_show(_parsed("SHOW COLUMNS IN nodes"))
    assert [r.getMessage() for r in caplog.records] == []


def test_pyspark_is_imported_only_for_a_spark_store() -> None:
    code = ("import sys; from afr.cli.main import cli; import afr.store; "
            "from afr.store import open_store, store_kind; store_kind('spark://local/x'); "
            "print('pyspark' in sys.modules, 'afr.store.spark_store' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True).stdout.split()
    assert out == ["False", "False"]


def test_writes_commit_and_roll_back(spark_store) -> None:
    store = spark_store
    store.init()
    store.set_meta("a", "1")
    store.set_meta("b", "2")
    store.set_meta("a", "3")  # DELETE then INSERT: copy on write
    assert dict(store.run("meta/all.sql"))["a"] == "3"
    with pytest.raises(RuntimeError), store.transaction():
        store.set_meta("b", "changed")
        store.execute("CREATE TABLE afr_scratch (x BIGINT)")
        raise RuntimeError("boom")
    assert dict(store.run("meta/all.sql"))["b"] == "2"
    assert not store.table_exists("afr_scratch")
    # every part on disk is named by the catalogue: the rollback removed what it wrote
    named = {p for t in store.tables.tables.values() for p in t.parts}
    on_disk = {f"{d.parent.name}/{d.name}" for d in store.tables.root.glob("*/*")
               if d.is_dir() and d.parent.name != "vectors"}
    assert on_disk == named
    # UPDATE (eval_runs.status) and JSON decoding
    store.run("eval/insert_run.sql", {"eval_id": "e1", "name": "n", "dataset": "d",
                                      "split": "s", "config": json.dumps({"k": [1, 2]}),
                                      "status": "running", "metrics": None,
                                      "pid": 1, "host": "h"})
    store.run("eval/set_status.sql", {"eval_id": "e1", "status": "done"})
    row = store.run("eval/get_run.sql", {"eval_id": "e1"}, owner=True)[0]
    assert (row.status, row.config) == ("done", {"k": [1, 2]})


def test_a_new_store_object_reads_what_was_committed(spark_store, spark_warehouse) -> None:
    spark_store.init()
    spark_store.set_meta("kept", "yes")
    again = open_store(spark_store.url, settings=StoreSettings(
        spark_warehouse=str(spark_warehouse)), create=False)
    try:
        assert again.get_meta("kept") == "yes"
    finally:
        again.close()


def test_a_view_is_defined_when_a_statement_first_names_its_table(spark_store,
                                                                  spark_warehouse) -> None:
    # a store has some 47 tables and a command reads a few: opening one defines no view
    # (each costs Spark ~30 ms), a statement defines those it names, SHOW lists them all
    spark_store.init()
    spark_store.execute("CREATE TABLE afr_t (a BIGINT)")
    spark_store.execute("INSERT INTO afr_t VALUES (1)")
    again = open_store(spark_store.url, settings=StoreSettings(
        spark_warehouse=str(spark_warehouse)), create=False)

    def views() -> set[str]:
        return {t.name for t in again.spark.catalog.listTables() if t.isTemporary}

    try:
        assert views() == set()
        assert again.query("SELECT a FROM afr_t") == [(1,)]
        assert views() == {"afr_t"}
        again.execute("INSERT INTO afr_t VALUES (2)")  # a write redefines it when read
        assert again.query("SELECT sum(a) FROM AFR_T")[0][0] == 3
        shown = {row[1] for row in again.query("/* every table */ SHOW TABLES")}
        assert shown == views() == set(again.tables.tables) and "nodes" in shown
    finally:
        again.close()


def test_a_failed_load_leaves_the_previous_skb(spark_store, tmp_path: Path) -> None:
    good = toy_skb(tmp_path / "good")
    load_skb_dir(spark_store, good, progress=False)
    before = spark_store.query("SELECT count(*) FROM nodes")[0][0]
    bad = toy_skb(tmp_path / "bad")
    with open(bad / "edges.csv", "a") as fh:
        fh.write("nosuch,knows,alsonot\n")
    with pytest.raises(LoadError):
        load_skb_dir(spark_store, bad, replace=True, progress=False)
    assert spark_store.query("SELECT count(*) FROM nodes")[0][0] == before > 0
    assert spark_store.skb_name() == "toy"


def test_a_replace_writes_the_catalogues_duckdb_writes(spark_store, tmp_path: Path) -> None:
    # a rebuild of the vectors and the reload drop tables (sqlglot ≥ 30.20 parses a DROP's
    # table into a list; the Spark store read only the old place) and the reload
    # writes each catalogue in one write: booleans, NULLs and counts as on DuckDB
    load_skb_dir(spark_store, toy_skb(tmp_path / "first"), progress=False)
    embedder = make_embedder("hash")
    embed_store(spark_store, embedder, progress=False)
    embed_store(spark_store, embedder, rebuild=True, progress=False)  # DROP, then RENAME
    assert spark_store.query("SELECT count(*) FROM emb_doc")[0][0] == 8
    other = dict(TOY_SCHEMA, name="other", directed=False)
    other["edge_types"] = {t: dict(e, directed=True) if t == "cites" else e
                           for t, e in TOY_SCHEMA["edge_types"].items()}
    other["edge_types"]["related"] = {"label": "related_to"}  # no end types: NULLs
    skb = write_skb(tmp_path / "other", other,
                    [{"id": 1, "type": "paper", "name": "only"}], [])
    report = load_skb_dir(spark_store, skb, replace=True, progress=False)
    duck = open_store(tmp_path / "duck.duckdb")
    try:
        load_skb_dir(duck, skb, progress=False)
        for table in ("node_types", "edge_types"):
            statement = f"SELECT * FROM {table} ORDER BY type"
            assert spark_store.query(statement) == duck.query(statement), table
        # the SKB's own meta (DuckDB adds keys of its own indexes)
        meta = "SELECT key, value FROM afr_meta WHERE key IN ('skb_name', " \
               "'skb_description', 'skb_directed', 'skb_int_ids', 'skb_edge_pairs') ORDER BY key"
        assert spark_store.query(meta) == duck.query(meta)
    finally:
        duck.close()
    assert report.replaced and spark_store.skb_name() == "other"
    assert not spark_store.table_exists("emb_doc")
    directed = dict(spark_store.query("SELECT type, directed FROM edge_types"))
    assert directed["cites"] is True and False in directed.values()


def test_a_newer_schema_version_is_refused(spark_store) -> None:
    spark_store.init()
    spark_store.set_meta("schema_version", "999")
    spark_store.forget_facts()
    with pytest.raises(StoreError, match="newer than this afr"):
        spark_store.init()


def test_the_cli_on_spark(spark_store, spark_warehouse, tmp_path: Path) -> None:
    url = spark_store.url
    spark_store.close()
    env = {"AFR_SPARK_WAREHOUSE": str(spark_warehouse), "AFR_DB": url}
    runner = CliRunner()

    def afr(*args: str):
        return runner.invoke(cli, list(args), env=env)

    assert afr("load", str(toy_skb(tmp_path / "skb"))).exit_code == 0
    info = afr("info", "--json")
    assert info.exit_code == 0, info.output
    assert json.loads(info.output)["nodes"] > 0
    rows = afr("sql", "--json", "SELECT count(*) AS n FROM nodes")
    assert rows.exit_code == 0, rows.output
    assert json.loads(rows.output)[0]["n"] == json.loads(info.output)["nodes"]
    aliases = afr("sql", "--json", "SELECT node_id, alias FROM node_aliases")
    assert [r["alias"] for r in json.loads(aliases.output)] == ["K. He"]
    missing = afr("sql", "SELECT * FROM no_such_table")
    assert missing.exit_code != 0 and missing.output.startswith("afr: error: Spark: ")
    assert "no_such_table" in missing.output and len(missing.output.splitlines()) == 1
    write = afr("sql", "DELETE FROM nodes")
    assert write.exit_code != 0 and "runs queries only" in write.output
    for sql, reason in [*_REFUSED.items(), *_NOT_QUERIES.items()]:
        refused = afr("sql", sql)
        assert refused.exit_code != 0 and refused.output.startswith("afr: error: "), sql
        assert reason in refused.output and len(refused.output.splitlines()) == 1, sql
    harmless = afr("sql", "--json", "SELECT count(*) AS n FROM (SELECT input_file_name() AS f "
                   "FROM nodes)")
    assert harmless.exit_code == 0 and harmless.output == rows.output, harmless.output
    assert afr("sql", "--json", "SELECT count(*) AS n FROM nodes").output == rows.output
    runs = afr("runs")
    assert runs.exit_code == 0, runs.output
    shown = afr("sql", "--json", "SHOW TABLES")  # a query, which sqlglot does not parse
    assert shown.exit_code == 0, shown.output
    assert "nodes" in {r["tableName"] for r in json.loads(shown.output)}


def test_sparks_progress_is_afrs_bar(spark_store, monkeypatch) -> None:
    from afr.store import spark_progress
    from afr.store.spark_progress import StatementBar, tracked

    # a statement of several tasks (6 partitions, then the count's own task): the
    # tracker's last report is every task of its stages, done
    reports: list[tuple[int, int]] = []
    context = spark_store.spark.sparkContext
    with tracked(context, lambda done, total: reports.append((done, total))):
        spark_store.spark.range(0, 600, 1, 6).selectExpr("sum(id)").collect()
    done, total = reports[-1]
    assert done == total >= 7 and all(d <= t for d, t in reports)
    # the store draws it when progress is on, and starts nothing when it is off
    drawn: list[tuple[str, int, int]] = []

    class Recorded(StatementBar):
        def __call__(self, done: int, total: int) -> None:
            drawn.append((self.desc, done, total))
            super().__call__(done, total)

    monkeypatch.setattr(spark_progress, "StatementBar", Recorded)
    spark_store.progress = False
    spark_store.query("SELECT count(*) FROM range(0, 600, 1, 6)")
    assert drawn == []
    spark_store.progress = True
    assert spark_store.query("SELECT count(*) FROM range(0, 600, 1, 6)")[0][0] == 600
    assert drawn and drawn[-1][0] == "spark query" and drawn[-1][1] == drawn[-1][2] >= 7
    # the bar itself: none for a statement already done, then moved to each count
    shown = StatementBar("x")
    shown(0, 0)
    shown(3, 3)
    assert shown.bar is None
    shown(2, 8)
    shown(8, 9)
    assert (shown.bar.n, shown.bar.total) == (8, 9)
    shown.close()


def test_spark_connect_serves_the_same_store(spark_connect_url, spark_warehouse,
                                             tmp_path: Path) -> None:
    # an SKB loaded through Spark Connect is the same tables a local session reads
    url = f"{spark_connect_url}/kb_connect"
    env = {"AFR_SPARK_WAREHOUSE": str(spark_warehouse), "AFR_DB": url}
    runner = CliRunner()

    def afr(*args: str):
        return runner.invoke(cli, list(args), env=env)

    loaded = afr("load", str(toy_skb(tmp_path / "skb")))
    assert loaded.exit_code == 0, loaded.output
    info = afr("info", "--json")
    assert info.exit_code == 0, info.output
    nodes = json.loads(info.output)["nodes"]
    rows = afr("sql", "--json", "SELECT count(*) AS n FROM nodes")
    assert rows.exit_code == 0 and json.loads(rows.output) == [{"n": nodes}] != [{"n": 0}]
    refused = afr("sql", "SELECT reflect('java.util.UUID', 'randomUUID')")
    assert refused.exit_code != 0 and "refuses reflect()" in refused.output
    local = open_store("spark://local[2]/kb_connect", settings=StoreSettings(
        spark_warehouse=str(spark_warehouse)), create=False)
    try:
        assert local.query("SELECT count(*) FROM nodes")[0][0] == nodes
        assert local.skb_name() == "toy"
    finally:
        local.close()


def test_an_unreachable_connect_server_is_one_line(tmp_path: Path) -> None:
    assert parse_spark_url("sc://h.example/kb") == ("sc://h.example:15002", "kb")
    assert parse_spark_url("sc://127.0.0.1:1/kb") == ("sc://127.0.0.1:1", "kb")
    result = CliRunner().invoke(cli, ["--db", "sc://127.0.0.1:1/kb", "load",
                                      str(toy_skb(tmp_path / "skb"))],
                                env={"AFR_SPARK_WAREHOUSE": str(tmp_path / "wh")})
    assert result.exit_code != 0
    assert result.output.startswith(
        "afr: error: cannot reach the Spark Connect server sc://127.0.0.1:1: ")
    assert len(result.output.strip().splitlines()) == 1
    assert not (tmp_path / "wh").exists()
