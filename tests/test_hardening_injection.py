"""Hostile values everywhere a user or an LLM hands afr text, on both stores.

Each string of ``hostile.CORPUS`` goes into every place of a Cypher query that reaches
the store (names, attribute values, regexes, IN lists, labels, relation types,
variables, attribute names, hop limits), into questions, and into LLM replies; through
the Python API, `afr cypher --run`, `afr ask` and `afr sql`. A run must answer or fail
with a one-line ``AfrError``; afterwards the store's tables, row counts and a checksum
of nodes and edges are exactly as before. Counts per category are printed (pytest -s)
and asserted, so a test that tried nothing fails.
"""

from __future__ import annotations

import json
import os
import shutil
import tempfile
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest
from afr.cli.main import cli
from click.testing import CliRunner
from fake_openai import FakeOpenAI, Reply, prompt_text
from hostile import (
    CORPUS,
    IDENTIFIERS,
    LIMITS,
    Tally,
    all_strings,
    cypher_literal,
    store_fingerprint,
)
from settings_util import settings_of
from skbutil import toy_skb

import afr
from afr.errors import AfrError
from afr.pipeline.ask import Pipeline
from afr.store import DuckDBStore, PostgresStore, Store

QUESTION = "Which paper by Thomas Kipf is about graph learning?"

# Where a string value can sit in a Cypher query ({v}: as a Cypher literal, {raw}: pasted
# between quotes as an LLM might, unescaped).
VALUE_TEMPLATES = {
    "name": "MATCH (y:paper)<-[:author_writes_paper]-(a:author {{name: {v}}}) RETURN y",
    "name_raw": "MATCH (y:paper)<-[:author_writes_paper]-(a:author {{name: '{raw}'}}) RETURN y",
    "name_dq_raw": 'MATCH (y:paper)-[:paper_has_field]-(f:field {{name: "{raw}"}}) RETURN y',
    "attr_eq": "MATCH (y:paper)-[:paper_has_field]-(f:field) WHERE y.venue.name = {v} RETURN y",
    "contains": "MATCH (y:paper)-[:paper_cites_paper]-(p:paper) WHERE p.name CONTAINS {v} "
                "RETURN y",
    "regex": "MATCH (y:paper)-[:paper_has_field]-(f:field) WHERE y.venue.name =~ {v} RETURN y",
    "in_list": "MATCH (y:paper)-[:paper_has_field]-(f:field) WHERE y.year IN [{v}, 2016] "
               "RETURN y",
    "compare": "MATCH (y:paper)-[:paper_has_field]-(f:field {{name: 'graph learning'}}) "
               "WHERE y.published >= {v} RETURN y",
    "whole": "{raw}",
}
IDENT_TEMPLATES = {
    "label": "MATCH (y:{i})-[:paper_has_field]-(f:field {{name: 'graph learning'}}) RETURN y",
    "label_bt": "MATCH (y:`{i}`)-[:paper_has_field]-(f:field {{name: 'vision'}}) RETURN y",
    "relation": "MATCH (y:paper)-[:{i}]-(f:field {{name: 'graph learning'}}) RETURN y",
    "variable": "MATCH ({i}:paper)-[:paper_has_field]-(f:field {{name: 'graph'}}) RETURN {i}",
    "attribute": "MATCH (y:paper)-[:paper_has_field]-(f:field) WHERE y.{i} = 1 RETURN y",
    "property": "MATCH (y:paper)-[:paper_has_field]-(f:field {{{i}: 'graph'}}) RETURN y",
}
LIMIT_TEMPLATES = {
    "hops": "MATCH (y:paper)-[:paper_cites_paper*1..{n}]-(p:paper {{name: 'GCN'}}) RETURN y",
    "hops_low": "MATCH (y:paper)-[:paper_cites_paper*{n}..2]-(p:paper {{name: 'GCN'}}) RETURN y",
    "limit": "MATCH (y:paper)-[:paper_has_field]-(f:field {{name: 'graph'}}) RETURN y LIMIT {n}",
    "number": "MATCH (y:paper)-[:paper_has_field]-(f:field) WHERE y.year > {n} RETURN y",
}

# The full matrix (every string in every place) takes minutes; CI runs every string in a
# rotating pair of places, so each place still meets every category. AFR_HARDENING_FULL=1
# runs it all (the figures in the notes come from that run).
FULL = os.environ.get("AFR_HARDENING_FULL") == "1"

TALLIES: dict[str, Tally] = {}


def rotate(templates: dict[str, str], i: int, per_item: int = 1) -> list[str]:
    items = list(templates.values())
    if FULL:
        return items
    return [items[(i * per_item + j) % len(items)] for j in range(per_item)]


def tally(name: str) -> Tally:
    return TALLIES.setdefault(name, Tally())


@pytest.fixture(scope="module", autouse=True)
def _print_tallies() -> Iterator[None]:
    yield
    for name, t in TALLIES.items():
        print("\n" + t.table(name))


def _load(store: Store, tmp: Path) -> Store:
    afr.load_skb_dir(store, toy_skb(tmp / "skb"), progress=False)
    afr.embed_store(store, afr.make_embedder("hash"), progress=False)
    return store


@pytest.fixture(scope="module", params=["duckdb", "postgres"])
def toy(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
        ) -> Iterator[tuple[str, str | None, Store]]:
    """(db, schema, store): a loaded, embedded toy SKB in each kind of store."""
    tmp = tmp_path_factory.mktemp(request.param)
    if request.param == "duckdb":
        db, schema = str(tmp / "toy.duckdb"), None
        store: Store = DuckDBStore(db)
    else:
        db, schema = request.getfixturevalue("pg_url"), "h_" + uuid.uuid4().hex[:10]
        store = PostgresStore(db, schema=schema)
    _load(store, tmp)
    yield db, schema, store
    store.close()


def _one_line_error(exc: AfrError) -> None:
    text = str(exc)
    assert text and "\n" not in text and len(text) < 2_000, text[:300]
    assert "Traceback" not in text


def _node_ids(store: Store) -> set[int]:
    return {int(r[0]) for r in store.query("SELECT id FROM nodes")}


def _try_ask(pipeline: Pipeline, cypher: str, t: Tally, category: str,
             question: str = QUESTION) -> None:
    try:
        result = pipeline.ask(question, cypher=cypher)
    except AfrError as exc:
        _one_line_error(exc)
        t.add(category, "clean error", held=True)
        return
    # Answers are always real nodes of the store, never something the query invented.
    assert {a.node_id for a in result.answers} <= _node_ids(pipeline.store)
    t.add(category, "answered", held=True)


def test_cypher_values_through_the_api(toy) -> None:
    db, _, store = toy
    before = store_fingerprint(store)
    runs_before = store.query("SELECT count(*) FROM runs")[0][0]
    # Logging every run costs a third of the time; the runs of the first pass are logged
    # (hostile text through the run-log's bound parameters), the rest are not.
    logged = Pipeline(store, settings_of(llm__offline=True, ask__k=5))
    quiet = Pipeline(store, settings_of(llm__offline=True, ask__k=5, ask__log=False))
    t = tally(f"api cypher values ({store.dialect.name})")
    for i, (category, value) in enumerate(all_strings()):
        for j, template in enumerate(rotate(VALUE_TEMPLATES, i)):
            cypher = template.format(v=cypher_literal(value), raw=value)
            _try_ask(logged if j == 0 else quiet, cypher, t, category)
    identifiers = IDENTIFIERS + ([s for _, s in all_strings() if len(s) < 100] if FULL else [])
    for i, ident in enumerate(identifiers):
        for template in rotate(IDENT_TEMPLATES, i, 2):
            _try_ask(quiet, template.format(i=ident), t, "identifiers")
    for i, n in enumerate(LIMITS):
        for template in rotate(LIMIT_TEMPLATES, i):
            _try_ask(quiet, template.format(n=n), t, "limits")
    per = len(VALUE_TEMPLATES) if FULL else 1
    assert sum(t.tried[c] for c in CORPUS) == len(all_strings()) * per
    assert t.tried["limits"] == len(LIMITS) * (len(LIMIT_TEMPLATES) if FULL else 1)
    assert store_fingerprint(store) == before
    # Every answered first-pass run was logged, hostile text and all.
    first = len(all_strings()) - sum(
        1 for (c, o), n in t.outcomes.items() for _ in range(n) if o == "clean error")
    runs = store.query("SELECT count(*) FROM runs")[0][0] - runs_before
    assert first <= runs <= len(all_strings())
    answered = sum(n for (c, o), n in t.outcomes.items() if o == "answered")
    assert answered > len(all_strings()) // 2  # most hostile values are just "no match"


def test_hostile_questions_through_the_api(toy) -> None:
    _, _, store = toy
    before = store_fingerprint(store)
    pipeline = Pipeline(store, settings_of(llm__offline=True, ask__k=5))
    t = tally(f"api questions ({store.dialect.name})")
    for i, (category, value) in enumerate(all_strings()):
        forms = (value, f"Which paper cites {value}?")
        for question in (forms if FULL else forms[i % 2:i % 2 + 1]):
            try:
                result = pipeline.ask(question)
                t.add(category, "answered", held=True)
                assert result.mode == "offline"
            except AfrError as exc:
                _one_line_error(exc)
                t.add(category, "clean error", held=True)
    assert sum(t.tried.values()) == (2 if FULL else 1) * len(all_strings())
    assert store_fingerprint(store) == before


def test_llm_replies_are_only_data(toy) -> None:
    """An LLM answering with hostile target types, Cypher and rankings changes nothing."""
    _, _, store = toy
    before = store_fingerprint(store)
    current = {"value": ""}

    def responder(request: dict) -> Reply:
        text = prompt_text(request)
        v = current["value"]
        if "Reply with the type name" in text:
            return Reply(v or "?")
        if "Cypher" in text:
            return Reply(VALUE_TEMPLATES["name"].format(v=cypher_literal(v)) + "\n" + v)
        return Reply(f"{v} 1, 2, 99999, -3, {v}")

    t = tally(f"llm replies ({store.dialect.name})")
    with FakeOpenAI(responder) as server:
        config = settings_of(rerank__method="listwise", ask__k=5, llm={"base_url": server.base_url, "model": "m", "api_key": "x",
                                "max_retries": 0})
        pipeline = Pipeline(store, config)
        candidates = _node_ids(store)
        strings = all_strings() if FULL else _two_per_category()
        for category, value in strings:
            current["value"] = value
            result = pipeline.ask(f"{QUESTION} [{category} {len(value)}]")
            assert {a.node_id for a in result.answers} <= candidates
            assert len({a.node_id for a in result.answers}) == len(result.answers)
            t.add(category, result.status, held=True)
    assert sum(t.tried.values()) == len(strings)
    assert store_fingerprint(store) == before


def _two_per_category() -> list[tuple[str, str]]:
    return [(cat, s) for cat, items in CORPUS.items() for s in items[:2]]


def _cli(db: str, schema: str | None, *args: str):
    prefix = ["--db", db] + (["--schema", schema] if schema else [])
    return CliRunner().invoke(cli, prefix + list(args))


def _check_cli(result, t: Tally, category: str) -> None:
    assert result.exit_code in (0, 1, 2), (result.exit_code, result.output[-500:])
    assert "Traceback" not in result.output and "internal error" not in result.output, \
        result.output[-500:]
    if result.exit_code == 0:
        t.add(category, "answered", held=True)
    else:
        lines = [ln for ln in result.output.splitlines() if ln.startswith("afr: error:")
                 or ln.startswith("Error:")]
        assert lines, result.output[-500:]
        t.add(category, "clean error", held=True)


def test_cli_cypher_and_ask(toy) -> None:
    db, schema, store = toy
    before = store_fingerprint(store)
    t = tally(f"cli ({store.dialect.name})")
    for i, (category, value) in enumerate(all_strings()):
        forms = [
            ["cypher", VALUE_TEMPLATES["name_raw"].format(raw=value), "--run", "--sql"],
            ["ask", value, "--offline", "--json"],
            ["cypher", value],
        ]
        for args in (forms if FULL else [forms[i % 3]]):
            _check_cli(_cli(db, schema, *args), t, category)
    for n in LIMITS:
        _check_cli(_cli(db, schema, "ask", QUESTION, "--offline", "-k", n), t, "limits")
        _check_cli(_cli(db, schema, "cypher", LIMIT_TEMPLATES["hops"].format(n=n), "--run"),
                   t, "limits")
    assert sum(t.tried.values()) == (3 if FULL else 1) * len(all_strings()) + 2 * len(LIMITS)
    assert store_fingerprint(store) == before


WRITES = [
    "DELETE FROM nodes",
    "DROP TABLE edges",
    "UPDATE nodes SET name = 'pwned'",
    "INSERT INTO node_types VALUES ('x', 'x', 'x', true)",
    "CREATE TABLE pwned (x INT)",
    "SELECT 1; DELETE FROM nodes",
    "BEGIN READ WRITE; DELETE FROM edges; COMMIT",
    "COMMIT; DELETE FROM edges",
    "SET default_transaction_read_only = off; DELETE FROM edges",
    "SET TRANSACTION READ WRITE",
    "WITH x AS (DELETE FROM nodes RETURNING 1) SELECT count(*) FROM x",
    "ALTER TABLE nodes RENAME TO gone",
    "TRUNCATE edges",
    "COPY nodes TO '{tmp}/out.csv'",
    "/* a comment first */ COPY (SELECT 1) TO '{shared}'",  # a file the server could write
    "ATTACH '{tmp}/other.duckdb' AS other",
    "INSTALL httpfs",
    "SELECT * FROM read_csv('/etc/hostname')",
    "CHECKPOINT",
    "VACUUM",
    "CALL pg_terminate_backend(pg_backend_pid())",
]


# Statements that may run on a read-only store because they change nothing there (a
# read-only DuckDB connection's CHECKPOINT and VACUUM are no-ops); every other one of
# WRITES must be refused.
RUN_HARMLESSLY = {"duckdb": {"CHECKPOINT", "VACUUM"}, "postgres": set()}


def test_sql_is_read_only_on_both_stores(toy, tmp_path: Path) -> None:
    db, schema, store = toy
    if schema is None:
        # DuckDB keeps one database instance per file and process, and the fixture holds
        # this one open for writing: try the statements on a copy nobody else has open.
        store.execute("CHECKPOINT")
        copy = tmp_path.parent / f"{tmp_path.name}-copy.duckdb"
        shutil.copy(db, copy)
        db, store = str(copy), None
    before = _fingerprint_of(db, schema, store)
    t = tally(f"afr sql writes ({'duckdb' if schema is None else 'postgres'})")
    shared = Path(tempfile.gettempdir()) / f"afr-copy-probe-{uuid.uuid4().hex}.csv"
    kind = "duckdb" if schema is None else "postgres"
    unheld = []
    for statement in WRITES:
        result = _cli(db, schema, "sql", statement.format(tmp=tmp_path, shared=shared))
        assert "Traceback" not in result.output and "internal error" not in result.output
        refused = result.exit_code != 0 and result.output.startswith("afr: error:") \
            and len(result.output.strip().splitlines()) == 1
        # Held: refused with one line, or one of the statements that change nothing on
        # this store anyway; and the store and the disk as they were, after this one.
        unchanged = _fingerprint_of(db, schema, store) == before and not list(
            tmp_path.iterdir()) and not shared.exists()
        held = unchanged and (refused or (result.exit_code == 0
                                          and statement in RUN_HARMLESSLY[kind]))
        t.add("sql", "refused" if result.exit_code else "ran (harmless)", held=held)
        if not held:
            unheld.append((statement, result.exit_code, result.output[-200:]))
    count = _cli(db, schema, "sql", "SELECT count(*) AS n FROM nodes", "--json")
    assert json.loads(count.output) == [{"n": 8}]
    assert t.held["sql"] == len(WRITES), unheld
    # The other read-only command still works under the same restrictions.
    info = _cli(db, schema, "info", "--json")
    assert info.exit_code == 0 and json.loads(info.output)["nodes"] == 8, info.output
    # Reads with the characters drivers treat specially still just read.
    for query, value in (("SELECT 7 % 3 AS v", 1), ("SELECT '%s' AS v", "%s"),
                         ("SELECT '%(x)s' AS v", "%(x)s"), ("SELECT '$1' AS v", "$1"),
                         ("SELECT ';' AS v -- ; DROP TABLE nodes", ";"),
                         ("SELECT 'é‮' AS v", "é‮")):
        result = _cli(db, schema, "sql", query, "--json")
        assert result.exit_code == 0, (query, result.output)
        assert json.loads(result.output) == [{"v": value}], (query, result.output)
        t.add("sql reads", "ran", held=True)


def _fingerprint_of(db: str, schema: str | None, store: Store | None) -> dict:
    if store is not None:
        return store_fingerprint(store)
    opened = DuckDBStore(db, read_only=True)  # as the CLI left it open, in this process
    try:
        return store_fingerprint(opened)
    finally:
        opened.close()
