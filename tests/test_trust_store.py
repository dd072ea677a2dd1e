"""Trust in the store (issue 10, items 1, 2, 6, 7, 8): a failed rebuild keeps the vectors
that work; a mismatched embedder is refused; commands that read never create a store,
a schema or an extension; afr's tables are found only in afr's schema; the DDL can be
printed, reviewed and applied by a DBA."""

from __future__ import annotations

import json
import zlib
from collections.abc import Iterator, Sequence
from pathlib import Path

import numpy as np
import psycopg
import pytest
from afr.cli.main import cli
from click.testing import CliRunner
from skbutil import toy_skb

from afr.embed import make_embedder
from afr.embed.openai_embed import OpenAIEmbedder
from afr.errors import EmbeddingError
from afr.load import load_skb_dir
from afr.store import PostgresStore, Store
from afr.store.base import SCHEMA_VERSION
from afr.vectors import embed_store, query_vector
from afr.vectors.index import pending_rebuild, shadow_variant
from afr.vectors.search import search

QUESTION = "Which paper by Thomas Kipf is about graph learning?"


class WordEmbedder:
    """A tiny bag-of-words embedder; ``fail_on`` makes its n-th call (1-based) fail."""

    def __init__(self, model_id: str = "test-words", dim: int = 32,
                 fail_on: int | None = None) -> None:
        self.model_id = model_id
        self.dim = dim
        self.calls = 0
        self.fail_on = fail_on

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        self.calls += 1
        if self.calls == self.fail_on:
            raise EmbeddingError("the embedding service went away")
        out = np.zeros((len(texts), self.dim), dtype=np.float32)
        for i, text in enumerate(texts):
            for word in text.lower().split():
                out[i, zlib.crc32(word.encode()) % self.dim] += 1.0
            out[i] /= max(float(np.linalg.norm(out[i])), 1e-9)
        return out


@pytest.fixture
def runner() -> CliRunner:
    return CliRunner()


def invoke(runner: CliRunner, *args: str):
    return runner.invoke(cli, list(args), catch_exceptions=False)


@pytest.fixture
def embedded(store: Store, tmp_path: Path) -> Store:
    load_skb_dir(store, toy_skb(tmp_path / "skb"), progress=False)
    embed_store(store, WordEmbedder(), progress=False)
    return store


def _vector_count(store: Store, variant: str) -> int:
    return int(store.query(f"SELECT count(*) FROM emb_{variant}")[0][0])


def _top_hit(store: Store, embedder: WordEmbedder) -> int:
    return search(store, "doc", query_vector(store, embedder, "graph attention"), 1)[0][0]


# -- 1. a failed rebuild loses nothing; an interrupted one resumes -------------------------


def test_failed_rebuild_keeps_the_working_vectors(embedded: Store) -> None:
    before = _top_hit(embedded, WordEmbedder())
    with pytest.raises(EmbeddingError):
        embed_store(embedded, WordEmbedder("other-model", 16, fail_on=1), rebuild=True,
                    progress=False)
    embedded.forget_facts()
    assert embedded.embedding_model("doc") == ("test-words", 32)
    assert embedded.embedding_model("doc_rel") == ("test-words", 32)
    assert _vector_count(embedded, "doc") == 8 and _vector_count(embedded, "doc_rel") == 8
    assert _top_hit(embedded, WordEmbedder()) == before
    assert embedded.has_vector_index("doc") == embedded.builds_vector_indexes


def test_interrupted_rebuild_resumes_and_swaps_in_whole(embedded: Store) -> None:
    # Batches of 3 over 8 nodes: calls 1-3 fill doc's shadow, the 5th (doc_rel) fails.
    with pytest.raises(EmbeddingError):
        embed_store(embedded, WordEmbedder("new-model", 16, fail_on=5), rebuild=True,
                    batch_size=3, progress=False)
    embedded.forget_facts()
    # Nothing swapped in yet: queries still see the old model's vectors, all of them.
    assert embedded.embedding_model("doc") == ("test-words", 32)
    assert _vector_count(embedded, "doc") == 8
    assert pending_rebuild(embedded, "doc") == ("new-model", 16)
    assert _vector_count(embedded, shadow_variant("doc")) == 8
    assert _vector_count(embedded, shadow_variant("doc_rel")) == 3
    # The rerun continues: doc is complete, doc_rel needs the 5 nodes it lacks.
    again = WordEmbedder("new-model", 16)
    report = embed_store(embedded, again, rebuild=True, batch_size=3, progress=False)
    assert report.embedded == {"doc": 0, "doc_rel": 5}
    assert report.resumed == ["doc", "doc_rel"] and report.rebuilt == ["doc", "doc_rel"]
    assert report.total == {"doc": 8, "doc_rel": 8} and report.dim == 16
    assert embedded.embedding_model("doc") == ("new-model", 16)
    assert embedded.embedding_model("doc_rel") == ("new-model", 16)
    assert not embedded.table_exists("emb_doc_rebuild")
    assert not embedded.table_exists("emb_doc_rel_rebuild")
    assert pending_rebuild(embedded, "doc") is None
    assert embedded.has_vector_index("doc") == embedded.builds_vector_indexes
    assert _top_hit(embedded, again) == _node(embedded, "p2")
    # And a second rebuild works as the first (index and key names were handed over).
    report = embed_store(embedded, WordEmbedder(), rebuild=True, progress=False)
    assert report.embedded == {"doc": 8, "doc_rel": 8}
    assert embedded.embedding_model("doc") == ("test-words", 32)


def test_rebuild_with_another_model_starts_over(embedded: Store) -> None:
    with pytest.raises(EmbeddingError):
        embed_store(embedded, WordEmbedder("model-a", 16, fail_on=2), rebuild=True,
                    variants=["doc"], batch_size=3, progress=False)
    report = embed_store(embedded, WordEmbedder("model-b", 24), rebuild=True,
                         variants=["doc"], batch_size=3, progress=False)
    assert report.embedded == {"doc": 8} and report.resumed == []
    assert embedded.embedding_model("doc") == ("model-b", 24)


def _node(store: Store, ext_id: str) -> int:
    return int(store.query(f"SELECT id FROM nodes WHERE ext_id = '{ext_id}'")[0][0])


@pytest.fixture
def no_retry_pause(monkeypatch: pytest.MonkeyPatch) -> None:
    """The OpenAI embedder's retries without their pauses (a dead port fails at once)."""
    defaults = dict(OpenAIEmbedder.__init__.__kwdefaults__ or {})
    if "sleep" in defaults:
        defaults["sleep"] = lambda seconds: None
        monkeypatch.setattr(OpenAIEmbedder.__init__, "__kwdefaults__", defaults)


def test_cli_rebuild_against_a_dead_embedder(runner: CliRunner, tmp_path: Path,
                                             monkeypatch: pytest.MonkeyPatch,
                                             no_retry_pause: None) -> None:
    db = str(tmp_path / "s.duckdb")
    assert invoke(runner, "--db", db, "load", str(toy_skb(tmp_path / "skb"))).exit_code == 0
    assert invoke(runner, "--db", db, "embed").exit_code == 0
    monkeypatch.setenv("AFR_EMBED_BASE_URL", "http://127.0.0.1:9/v1")
    monkeypatch.setenv("AFR_EMBED_API_KEY", "unused")
    failed = invoke(runner, "--db", db, "embed", "--model", "openai:text-embedding-3-small",
                    "--rebuild")
    assert failed.exit_code != 0 and "afr: error:" in failed.output
    info = json.loads(invoke(runner, "--db", db, "info", "--json").output)
    assert [(e["variant"], e["model"], e["nodes"]) for e in info["embeddings"]] == [
        ("doc", "hash-ngram-v1", 8), ("doc_rel", "hash-ngram-v1", 8)]
    asked = invoke(runner, "--db", db, "ask", QUESTION)
    assert asked.exit_code == 0 and "Semi-supervised" in asked.output


# -- 2. a mismatched embedder is refused, whatever differs -------------------------------


def test_other_size_of_the_same_embedder_is_refused(store: Store, tmp_path: Path) -> None:
    load_skb_dir(store, toy_skb(tmp_path / "skb"), progress=False)
    embed_store(store, make_embedder("hash"), progress=False)
    with pytest.raises(EmbeddingError, match="dim 384.*--rebuild"):
        embed_store(store, make_embedder("hash:512"), progress=False)
    report = embed_store(store, make_embedder("hash:512"), rebuild=True, progress=False)
    assert report.dim == 512 and store.embedding_model("doc") == ("hash-ngram-v1", 512)


def test_cli_embed_other_size_fails(runner: CliRunner, tmp_path: Path) -> None:
    db = str(tmp_path / "s.duckdb")
    invoke(runner, "--db", db, "load", str(toy_skb(tmp_path / "skb")))
    assert invoke(runner, "--db", db, "embed").exit_code == 0
    result = invoke(runner, "--db", db, "embed", "--model", "hash:512")
    assert result.exit_code != 0 and "--rebuild" in result.output
    assert "embedded 0 nodes" not in result.output


# -- 6. commands that read never create anything -----------------------------------------


@pytest.mark.parametrize("command", [
    ["ask", QUESTION], ["cypher", "MATCH (p:paper) RETURN p", "--run"], ["info"],
    ["sql", "SELECT 1"], ["eval", "demo", "--limit", "1"], ["embed"],
])
def test_mistyped_duckdb_path_creates_nothing(runner: CliRunner, tmp_path: Path,
                                              monkeypatch: pytest.MonkeyPatch,
                                              command: list[str]) -> None:
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("AFR_CACHE_DIR", str(tmp_path / "cache"))
    result = invoke(runner, "--db", "typo.duckdb", *command)
    assert result.exit_code != 0
    assert "no store at typo.duckdb" in result.output
    assert result.output.count("\n") == 1 and "Traceback" not in result.output
    assert not list(tmp_path.iterdir())


def test_embed_without_a_store_creates_nothing(runner: CliRunner, tmp_path: Path,
                                               monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("AFR_DB", raising=False)
    monkeypatch.setenv("AFR_CACHE_DIR", str(tmp_path / "cache"))
    result = invoke(runner, "embed")
    assert result.exit_code != 0
    assert "no store here" in result.output and "afr load" in result.output
    assert not list(tmp_path.iterdir())


@pytest.mark.parametrize("target", [
    "mysql://me@host/kb", "sqlite:///x.db", "postgresq://me@host/kb", "sqlite:x.db",
    "md:kb", "postgresql:/kb",
])
@pytest.mark.parametrize("command", [["ask", QUESTION], ["load", "skb"], ["embed"]])
def test_foreign_store_forms_are_refused(runner: CliRunner, tmp_path: Path,
                                         monkeypatch: pytest.MonkeyPatch, target: str,
                                         command: list[str]) -> None:
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("AFR_CACHE_DIR", str(tmp_path / "cache"))
    if command[0] == "load":
        toy_skb(tmp_path / "skb")
    import duckdb

    def no_connect(*args: object, **kwargs: object) -> None:
        raise AssertionError("DuckDB was asked to open it (and fetch an extension)")

    monkeypatch.setattr(duckdb, "connect", no_connect)
    result = invoke(runner, "--db", target, *command)
    assert result.exit_code != 0 and "afr: error: unsupported store" in result.output
    assert "DuckDB file path" in result.output and "postgresql://" in result.output
    assert sorted(p.name for p in tmp_path.iterdir()) == (["skb"] if command[0] == "load"
                                                          else [])


# -- 6 and 7 on PostgreSQL ---------------------------------------------------------------


@pytest.fixture
def pg_admin(pg_url: str) -> Iterator[psycopg.Connection]:
    con = psycopg.connect(pg_url, autocommit=True)
    yield con
    con.close()


def _schema_exists(con: psycopg.Connection, name: str) -> bool:
    return bool(con.execute("SELECT 1 FROM information_schema.schemata WHERE schema_name = "
                            "%s", (name,)).fetchall())


@pytest.mark.parametrize("command", [
    ["ask", QUESTION], ["info"], ["sql", "SELECT 1"], ["embed"],
    ["cypher", "MATCH (p:paper) RETURN p", "--run"],
])
def test_mistyped_schema_is_an_error_and_creates_nothing(
        runner: CliRunner, pg_url: str, pg_schema_name: str, pg_admin: psycopg.Connection,
        command: list[str]) -> None:
    result = invoke(runner, "--db", pg_url, "--schema", pg_schema_name, *command)
    assert result.exit_code != 0
    assert f"no afr schema '{pg_schema_name}'" in result.output
    assert not _schema_exists(pg_admin, pg_schema_name)


@pytest.fixture
def database_without_pgvector(pg_url: str, pg_admin: psycopg.Connection) -> Iterator[str]:
    name = "afr_noext"
    pg_admin.execute(f"DROP DATABASE IF EXISTS {name}")
    pg_admin.execute(f"CREATE DATABASE {name}")
    url = pg_url.replace("/postgres?", f"/{name}?") if "/postgres?" in pg_url else None
    if url is None:
        pytest.skip("cannot name another database in this test server's URL")
    yield url
    pg_admin.execute(f"DROP DATABASE IF EXISTS {name} WITH (FORCE)")


@pytest.mark.parametrize("command", [["ask", QUESTION], ["info"], ["sql", "SELECT 1"]])
def test_reading_commands_never_create_the_extension(runner: CliRunner,
                                                     database_without_pgvector: str,
                                                     command: list[str]) -> None:
    result = invoke(runner, "--db", database_without_pgvector, *command)
    assert result.exit_code != 0 and "pgvector" in result.output
    with psycopg.connect(database_without_pgvector) as con:
        assert not con.execute("SELECT 1 FROM pg_extension WHERE extname = 'vector'"
                               ).fetchall()
        assert not _schema_exists(con, "afr")


@pytest.fixture
def users_own_nodes(pg_admin: psycopg.Connection) -> Iterator[None]:
    pg_admin.execute("CREATE TABLE public.nodes (secret text)")
    pg_admin.execute("INSERT INTO public.nodes VALUES ('the user''s own data')")
    yield
    pg_admin.execute("DROP TABLE public.nodes")


def test_afr_tables_only_in_afr_schema(runner: CliRunner, pg_url: str, pg_schema_name: str,
                                       pg_admin: psycopg.Connection, users_own_nodes: None,
                                       tmp_path: Path) -> None:
    # No afr schema (not loaded yet, or --schema mistyped): an error, not public.nodes.
    missing = invoke(runner, "--db", pg_url, "--schema", pg_schema_name, "sql",
                     "SELECT * FROM nodes")
    assert missing.exit_code != 0 and "user's own" not in missing.output
    # A schema without afr's tables (made by a DBA, say): an error too.
    pg_admin.execute(f'CREATE SCHEMA "{pg_schema_name}"')
    try:
        empty = invoke(runner, "--db", pg_url, "--schema", pg_schema_name, "sql",
                       "SELECT * FROM nodes")
        assert empty.exit_code != 0 and "user's own" not in empty.output
        assert "no afr tables" in empty.output
        loaded = invoke(runner, "--db", pg_url, "--schema", pg_schema_name, "load",
                        str(toy_skb(tmp_path / "skb")))
        assert loaded.exit_code == 0, loaded.output
        path = invoke(runner, "--db", pg_url, "--schema", pg_schema_name, "sql",
                      "SELECT current_setting('search_path') AS p", "--json")
        search_path = json.loads(path.output)[0]["p"]
        assert search_path.startswith(f'"{pg_schema_name}"') and "$user" not in search_path
        rows = invoke(runner, "--db", pg_url, "--schema", pg_schema_name, "sql",
                      "SELECT count(*) AS n FROM nodes", "--json")
        assert json.loads(rows.output) == [{"n": 8}]
    finally:
        pg_admin.execute(f'DROP SCHEMA IF EXISTS "{pg_schema_name}" CASCADE')


def test_store_without_create_needs_its_schema(pg_url: str, pg_schema_name: str,
                                               pg_admin: psycopg.Connection) -> None:
    from afr.errors import StoreError

    with pytest.raises(StoreError, match="no afr schema"):
        PostgresStore(pg_url, schema=pg_schema_name, create=False)
    with pytest.raises(StoreError, match="no afr schema"):
        PostgresStore(pg_url, schema=pg_schema_name, read_only=True)
    assert not _schema_exists(pg_admin, pg_schema_name)


# -- 8. the DDL, printed for a DBA; a read-only role ---------------------------------------


def test_print_sql_opens_nothing(runner: CliRunner, tmp_path: Path,
                                 monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    duck = invoke(runner, "--db", "new.duckdb", "init", "--print-sql", "--dim", "8")
    assert duck.exit_code == 0 and "CREATE TABLE IF NOT EXISTS emb_doc_rel" in duck.output
    assert "FLOAT[8]" in duck.output and "hnsw" not in duck.output.lower()
    pg = invoke(runner, "--db", "postgresql://dba@127.0.0.1:1/kb", "--schema", "kb", "init",
                "--print-sql", "--dim", "8")
    assert pg.exit_code == 0
    for wanted in ('CREATE SCHEMA IF NOT EXISTS "kb"', "CREATE EXTENSION IF NOT EXISTS vector",
                   "DOUBLE PRECISION", "JSONB", "VECTOR(8)", "USING hnsw",
                   "CREATE UNIQUE INDEX IF NOT EXISTS nodes_id"):
        assert wanted in pg.output
    assert "DOUBLE," not in pg.output and "FLOAT[" not in pg.output
    assert not list(tmp_path.iterdir())


CYPHER_RUN = ("MATCH (a:author {name: 'Thomas Kipf'})-[:author_writes_paper]->(p:paper) "
              "RETURN p")


def test_printed_ddl_applies_and_afr_works_on_it(runner: CliRunner, pg_url: str,
                                                 pg_schema_name: str,
                                                 pg_admin: psycopg.Connection,
                                                 tmp_path: Path) -> None:
    """A DBA applies the printed DDL and loads; a read-write role (no CREATE, owns
    nothing) embeds into the tables the DBA made, asks and evaluates; a role with SELECT
    only reads: info, sql, ask and cypher --run (its run is not logged), eval list, show,
    export and compare, but not eval itself; neither loads — the README's privileges
    table."""
    ddl = invoke(runner, "--db", pg_url, "--schema", pg_schema_name, "init", "--print-sql",
                 "--dim", "384").output
    writer, reader = "w_" + pg_schema_name, "r_" + pg_schema_name
    try:
        pg_admin.execute(ddl)  # the script as psql would run it, in one go
        db = ["--db", pg_url, "--schema", pg_schema_name]
        info = json.loads(invoke(runner, *db, "info", "--json").output)
        assert info["schema_version"] == SCHEMA_VERSION and info["skb"] is None
        assert invoke(runner, *db, "load", str(toy_skb(tmp_path / "skb"))).exit_code == 0

        for role, grant in ((writer, "SELECT, INSERT, UPDATE, DELETE"), (reader, "SELECT")):
            pg_admin.execute(f'CREATE ROLE "{role}" LOGIN')
            pg_admin.execute(f'GRANT USAGE ON SCHEMA "{pg_schema_name}" TO "{role}"')
            pg_admin.execute(f'GRANT {grant} ON ALL TABLES IN SCHEMA "{pg_schema_name}" '
                             f'TO "{role}"')
        rw = ["--db", _as_role(pg_url, writer), "--schema", pg_schema_name]
        embedded = invoke(runner, *rw, "embed")
        assert embedded.exit_code == 0, embedded.output
        indexes = {r[0] for r in pg_admin.execute(
            "SELECT indexname FROM pg_indexes WHERE schemaname = %s", (pg_schema_name,))}
        assert {"emb_doc_hnsw", "emb_doc_rel_hnsw", "nodes_id", "edges_src"} <= indexes
        asked = invoke(runner, *rw, "ask", QUESTION)
        assert "Semi-supervised" in asked.output and "not logged" not in asked.output
        refused = invoke(runner, *rw, "embed", "--rebuild")
        assert refused.exit_code != 0 and "permission denied" in refused.output

        ro = ["--db", _as_role(pg_url, reader), "--schema", pg_schema_name]
        info = json.loads(invoke(runner, *ro, "info", "--json").output)
        assert info["nodes"] == 8 and info["embeddings"][0]["model"] == "hash-ngram-v1"
        assert info["runs"] == 1
        rows = invoke(runner, *ro, "sql", "SELECT count(*) AS n FROM edges", "--json")
        assert json.loads(rows.output) == [{"n": 7}]
        asked = invoke(runner, *ro, "ask", QUESTION)
        assert asked.exit_code == 0 and "Semi-supervised" in asked.output
        assert "not logged" in asked.output and "permission denied" in asked.output
        refused = invoke(runner, *ro, "embed", "--rebuild")
        assert refused.exit_code != 0 and "permission denied" in refused.output
        # the rest of the README's table, command by command
        cypher = invoke(runner, *ro, "cypher", "--run", CYPHER_RUN)
        assert cypher.exit_code == 0 and "Semi-supervised" in cypher.output, cypher.output
        skb = str(tmp_path / "skb")
        ran = invoke(runner, *rw, "--no-progress", "eval", skb, "--offline", "--name", "rw")
        assert ran.exit_code == 0, ran.output  # a read-write role evaluates
        eval_ro = invoke(runner, *ro, "--no-progress", "eval", skb, "--offline")
        assert eval_ro.exit_code == 1 and "permission denied" in eval_ro.output
        for args in (["eval", "list"], ["eval", "show", "rw"],
                     ["eval", "export", "rw", "--json", str(tmp_path / "rw.json")],
                     ["eval", "compare", "rw", "rw"]):
            shown = invoke(runner, *ro, *args)
            assert shown.exit_code == 0, (args, shown.output)
        assert json.loads((tmp_path / "rw.json").read_text(encoding="utf-8"))
        for role in (rw, ro):  # loading needs the schema owner
            load = invoke(runner, *role, "load", skb, "--replace")
            assert load.exit_code == 1 and "permission denied" in load.output, load.output
        # Nothing the refused commands began is left: the vectors still answer.
        info = json.loads(invoke(runner, *db, "info", "--json").output)
        assert [e["nodes"] for e in info["embeddings"]] == [8, 8]
    finally:
        pg_admin.execute(f'DROP SCHEMA IF EXISTS "{pg_schema_name}" CASCADE')
        for role in (writer, reader):
            if _role_exists(pg_admin, role):
                pg_admin.execute(f'DROP OWNED BY "{role}"')
                pg_admin.execute(f'DROP ROLE "{role}"')


def _as_role(url: str, role: str) -> str:
    if not url.startswith("postgresql://postgres:@/"):
        pytest.skip("the read-only role test needs the pgserver test server")
    return url.replace("postgresql://postgres:@/", f"postgresql://{role}:@/", 1)


def _role_exists(con: psycopg.Connection, role: str) -> bool:
    return bool(con.execute("SELECT 1 FROM pg_roles WHERE rolname = %s", (role,)).fetchall())
