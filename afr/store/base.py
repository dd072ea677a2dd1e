"""The store interface: one SKB in SQL tables, in DuckDB, PostgreSQL or Spark.

A store renders SQL templates from ``sql/`` and ``schema/`` (Jinja), picks the file for
its dialect, finishes it (``afr.store.dialect``) and runs it with bound parameters.
Everything above this layer speaks only through ``run``/``query`` and the few methods
below, so the pipeline never knows which database it is on.

The dialect rule: a template named ``dir/name.sql`` runs as ``dir/name.<dialect>.sql``
(``duckdb``, ``postgres`` or ``spark``) when that file exists, as written; otherwise as the
portable ``dir/name.sql``, written in DuckDB's dialect and transpiled for PostgreSQL and
Spark by sqlglot.
"""

from __future__ import annotations

import json
import re
import threading
from abc import ABC, abstractmethod
from collections import namedtuple
from collections.abc import Callable, Iterator, Sequence
from contextlib import AbstractContextManager, contextmanager, nullcontext
from dataclasses import dataclass
from functools import cache, lru_cache
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

from afr.errors import StoreConnectionError, StoreError
from afr.resources import schema_dir, sql_dir
from afr.store.dialect import DUCKDB, Dialect, split_sql
from afr.store.runtime import StoreRuntime
from afr.store.skb import EdgeType, NodeType, SkbSchema

if TYPE_CHECKING:  # numpy is imported where arrays are made: `afr sql` needs none
    import jinja2  # imported by the first template that needs Jinja (most are plain)
    import numpy as np

T = TypeVar("T")
SCHEMA_VERSION = 14
VECTOR_VARIANTS = ("doc", "doc_rel")
# PostgreSQL: node types with at least this many nodes get an HNSW index of their own.
TYPE_INDEX_MIN_NODES = 1000
# Tables that hold one SKB's data; --replace empties them.
SKB_TABLES = ("nodes", "node_aliases", "edges", "node_types", "edge_types", "node_attributes",
              "lex_postings", "lex_docs", "lex_df", "lex_stats", "node_names", "node_sim",
              "node_sim_meta")
# Facts (``Store.fact``) that depend only on the loaded SKB (its tables above, bar the
# indexes, and its skb_* meta): a write of vectors or of an index keeps them.
SKB_FACTS = frozenset({"schema", "schema_version", "node_type_counts", "edge_endpoints",
                       "single_relation_types", "hierarchy_parents"})
DIALECTS = ("duckdb", "postgres", "spark")
_IDENT = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")


def check_identifier(name: str, what: str = "identifier") -> str:
    """Identifiers that reach templates are ours, but we check them anyway."""
    if not _IDENT.match(name):
        raise StoreError(f"invalid {what} {name!r}")
    return name


def check_table_name(name: str) -> str:
    """A dotted table name (``lake.skb_nodes``) whose every part is checked."""
    return ".".join(check_identifier(part, "table name") for part in name.split("."))


@lru_cache(maxsize=1)
def _jinja() -> jinja2.Environment:
    import jinja2

    loader = jinja2.ChoiceLoader(
        [
            jinja2.FileSystemLoader(str(sql_dir())),
            jinja2.PrefixLoader({"schema": jinja2.FileSystemLoader(str(schema_dir()))}),
        ]
    )
    return jinja2.Environment(
        loader=loader,
        undefined=jinja2.StrictUndefined,
        autoescape=False,
        trim_blocks=True,
        lstrip_blocks=True,
        keep_trailing_newline=True,
    )


def _template_path(name: str):
    if name.startswith("schema/"):
        return schema_dir() / name.removeprefix("schema/")
    return sql_dir() / name


@cache
def template_file(name: str, dialect: str) -> tuple[str, bool]:
    """The file that serves template ``name`` on ``dialect``, and whether it is written
    for that dialect (run as written) rather than portable (finished per dialect)."""
    stem, dot, ext = name.rpartition(".")
    if not dot or ext != "sql" or stem.rpartition(".")[2] in (*DIALECTS, "pg"):
        raise StoreError(f"internal: name SQL templates as 'dir/name.sql', not {name!r}")
    native = f"{stem}.{dialect}.sql"
    if _template_path(native).is_file():
        return native, True
    if _template_path(name).is_file():
        return name, False
    raise StoreError(f"internal: no SQL template {name!r} for {dialect}")


def render_template(name: str, dialect: Dialect, *, pretty: bool = False,
                    **ctx: Any) -> list[str]:
    """The statements of template ``name`` (``dir/name.sql``, or ``schema/<file>``) for
    ``dialect``, by the dialect rule above. Stores call this through ``Store.sql``; only
    code that runs SQL on a DuckDB connection of its own (staging) calls it directly.
    ``pretty`` lays transpiled statements out for people (``afr init --print-sql``)."""
    file, native = template_file(name, dialect.name)
    text = _plain_text(file)
    if text is None:
        text = _jinja().get_template(file).render(**ctx)
    return split_sql(text) if native else dialect.finish(text, pretty=pretty)


@cache
def _plain_text(file: str) -> str | None:
    """The text of a template without Jinja syntax (most of them), which renders to
    itself: read once, never compiled (a cold `afr cypher --run` runs a dozen). None for
    templates that need Jinja."""
    text = _template_path(file).read_text(encoding="utf-8")
    return None if any(mark in text for mark in ("{{", "{%", "{#")) else text


def duckdb_sql(name: str, **ctx: Any) -> list[str]:
    """Statements of template ``name`` for a DuckDB connection of the caller's own (the
    loader's staging database, synth's scratch files), by the same dialect rule."""
    return render_template(name, DUCKDB, **ctx)


@lru_cache(maxsize=512)
def _row_class(columns: tuple[str, ...]) -> type:
    return namedtuple("Row", columns, rename=True)  # type: ignore[misc]


def named_rows(columns: Sequence[str], rows: list[tuple]) -> list[tuple]:
    """Rows readable by column name (``row.ext_id``) and by position, as before."""
    if not columns or not rows:
        return rows
    make = _row_class(tuple(columns))._make
    return list(map(make, rows))


def decode_json_columns(json_columns: Sequence[int], rows: list[tuple]) -> list[tuple]:
    """Rows with the given JSON columns decoded: stores hand JSON back as Python objects."""
    if not json_columns or not rows:
        return rows
    out = []
    for row in rows:
        values = list(row)
        for i in json_columns:
            if isinstance(values[i], str | bytes):
                values[i] = json.loads(values[i])
        out.append(tuple(values))
    return out


@dataclass(frozen=True)
class NodeDetails:
    """What answers show of a node."""

    id: int
    ext_id: str
    type: str
    name: str | None


class Store(ABC):
    """One SKB in a SQL database."""

    dialect: Dialect
    location: str  # for humans: a file path or a redacted URL
    lock: threading.RLock  # one connection, many threads: statements take turns
    #: Whether the store builds approximate vector indexes (PostgreSQL's HNSW), which
    #: serve its searches better than in-memory matrices of its vectors.
    builds_vector_indexes: bool = False
    #: Whether BM25 reads the lexical index from a postings file beside the store
    #: (``afr.lexical.memory``) rather than from SQL, when the file is current: DuckDB,
    #: which reaches a term's postings only by scanning the row groups that hold it, and
    #: Spark, where each BM25 statement is a job of several stages.
    maps_postings: bool = False
    #: The most postings such a file is written for (None: any number): beyond it BM25
    #: stays in SQL.
    postings_file_max: int | None = None
    #: Whether a long statement shows the engine's own progress as afr's bar (Spark's
    #: tasks; the other stores have none to show). None: only on a terminal. The command
    #: line sets it from --progress/--no-progress.
    progress: bool | None = None
    #: Nodes per batch of a step that builds node documents batch by batch (the lexical
    #: index; embedding on Spark's executors): each batch costs a few statements, cheap on
    #: a database, a job each on Spark.
    document_batch: int = 1000

    def __init__(self) -> None:
        self.lock = threading.RLock()
        #: Statements run so far (each ``execute`` and ``query``), and transactions begun
        #: (each adds a BEGIN and a COMMIT or ROLLBACK): what a step costs in trips to the
        #: database.
        self.statements = 0
        self.transactions = 0
        #: Reads a read replica failed (it went away) that ran again on the primary.
        self.standby_fallbacks = 0
        # What this process keeps beside the connection: among it the facts read once
        # per store object (schema, embedding models, type counts), kept until this store
        # changes them (a load, new vectors, a recorded model) or a transaction rolls
        # back. Another process changing the store is not seen.
        self.runtime = StoreRuntime()

    # -- statements --------------------------------------------------------------------

    def sql(self, template: str, **ctx: Any) -> list[str]:
        """The statements of ``template`` for this store's dialect (see the dialect rule)."""
        return render_template(template, self.dialect, **ctx)

    def execute(self, sql: str, params: dict[str, Any] | None = None) -> None:
        with self.lock:
            self.statements += 1
            self._execute(sql, params)

    def query(self, sql: str, params: dict[str, Any] | None = None) -> list[tuple]:
        """Rows of one statement, readable by column name and by position; JSON columns
        come back as Python objects on every store."""
        columns, rows = self.query_with_columns(sql, params)
        return named_rows(columns, rows)

    def query_with_columns(
        self, sql: str, params: dict[str, Any] | None = None, *, max_rows: int | None = None
    ) -> tuple[list[str], list[tuple]]:
        """Column names and rows; with ``max_rows``, at most that many rows are fetched
        (the rest of the result is never turned into Python values)."""
        with self.lock:
            self.statements += 1
            return self._fetch(sql, params, max_rows)

    def query_numpy(self, sql: str, params: dict[str, Any] | None = None
                    ) -> dict[str, np.ndarray]:
        """Columns as numpy arrays (bulk reads, such as a vector matrix)."""
        columns, rows = self.query_with_columns(sql, params)
        import numpy as np

        return {c: np.asarray([r[i] for r in rows], dtype=object)
                for i, c in enumerate(columns)}

    @abstractmethod
    def _execute(self, sql: str, params: dict[str, Any] | None) -> None:
        """Run one statement (the lock is held)."""

    @abstractmethod
    def _fetch(self, sql: str, params: dict[str, Any] | None, max_rows: int | None = None
               ) -> tuple[list[str], list[tuple]]:
        """Run one statement and return its column names and rows (the first
        ``max_rows`` when given), JSON decoded (the lock is held)."""

    def run(self, template: str, params: dict[str, Any] | None = None, **ctx: Any) -> list[tuple]:
        """Render a template and run its statements; rows of the last one are returned."""
        return named_rows(*self._run(template, params, ctx))

    def run_tuples(self, template: str, params: dict[str, Any] | None = None,
                   **ctx: Any) -> list[tuple]:
        """``run`` for bulk reads unpacked by position: the last statement's rows as plain
        tuples (naming 30K rows per batch cost the embedder 6% of its time)."""
        return self._run(template, params, ctx)[1]

    def _run(self, template: str, params: dict[str, Any] | None, ctx: dict[str, Any]
             ) -> tuple[list[str], list[tuple]]:
        """The statements of ``template`` run in order: the last one's columns and rows."""
        columns: list[str] = []
        rows: list[tuple] = []
        statements = self.sql(template, **ctx)
        for i, stmt in enumerate(statements):
            if i == len(statements) - 1:
                columns, rows = self.query_with_columns(stmt, used_params(stmt, params))
            else:
                self.execute(stmt, used_params(stmt, params))
        return columns, rows

    @contextmanager
    def transaction(self) -> Iterator[None]:
        """One transaction (nested ones join the outer one). When it fails, the facts this
        store object remembers are forgotten: they may have come from inside it."""
        try:
            with self._transaction():
                yield
        except BaseException:
            self.forget_facts()
            raise

    @abstractmethod
    def _transaction(self) -> Any: ...

    def run_in_transaction(self, work: Callable[[], T], *, retries: int = 1) -> T:
        """``work()`` in one transaction. When the connection is lost on the way (a server
        restart), the transaction was rolled back: it runs once more, whole, on a new
        connection. ``work`` must be safe to repeat (it is, when it deletes before it
        inserts or inserts under a fresh key)."""
        for attempt in range(retries + 1):
            try:
                with self.transaction():
                    return work()
            except StoreConnectionError:
                if attempt >= retries:
                    raise
        raise AssertionError("unreachable")

    def table_exists(self, table: str) -> bool:
        return bool(self.run("meta/table_exists.sql", {"table": table}))

    # -- an SKB's tables named in the store's catalog (afr load --nodes-table) ----------

    #: The schema a user's name reaches afr's own tables by (DuckDB's ``main``, the
    #: PostgreSQL store's schema); None where no qualified name does (Spark's are views).
    own_schema: str | None = None

    @abstractmethod
    def catalog_table_exists(self, name: str) -> bool:
        """Whether ``name`` (``schema.table``, its parts checked) is a table or view of
        this store's catalog."""

    @abstractmethod
    def view_catalog_table(self, name: str, con: Any, view: str) -> None:
        """Make ``view`` of the DuckDB staging connection ``con`` read the table ``name``
        of this store's catalog (``catalog_table_exists`` found it; afr.load.loader checks
        the name first)."""

    @abstractmethod
    def close(self) -> None: ...

    #: Questions ``afr eval`` asks at once on this store (each in a thread of its own
    #: that reads within ``gathering()``): more than one where the store runs the reads
    #: those questions send together as one query (Spark: a job per statement).
    question_batch: int = 1

    def gathering(self) -> AbstractContextManager[None]:
        """Around one eval thread's questions: its reads may be run together with the
        other gathering threads' (``question_batch``). Nothing, on most stores."""
        return nullcontext()

    def reader(self, *, wait: bool = True) -> Store | None:
        """A second connection to this store for reads that run beside this one's
        (``afr.retrieval.parallel``), sharing its facts and closed with it; None when the
        store has no use for one (an embedded database answers a thread at a time), or,
        with ``wait=False``, while it is still being opened."""
        return None

    def reader_lost(self, reader: Store) -> None:
        """``reader`` lost its connection (its server went away): reads stop going to it.
        Stores without a reader have nothing to do."""
        return None

    def drop_created_schema(self) -> None:
        """Remove the database schema this store object created (PostgreSQL), with what
        is in it: a first load that failed leaves nothing. A DuckDB file has no schema of
        its own; its creator removes the file once it is closed."""
        return None

    def server_memory(self) -> tuple[int, int] | None:
        """(shared buffer pool, size of afr's approximate vector indexes) in bytes, for a
        store served by a database server with such a pool (PostgreSQL); None elsewhere."""
        return None

    # -- facts read once ---------------------------------------------------------------

    def fact(self, key: Any, read: Callable[[], T]) -> T:
        """``read()``, once per store object until a change of this store forgets it."""
        try:
            return self.runtime.facts[key]
        except KeyError:
            value = read()
            self.runtime.facts[key] = value
            return value

    def forget_facts(self) -> None:
        """Read the schema, embedding models and type counts afresh on next use."""
        self.runtime.facts.clear()

    def forget_derived_facts(self) -> None:
        """After a write of vectors or of an index: forget what those may change, keep
        what only a load changes (``SKB_FACTS``). On Spark each fact read again is a
        statement: forgetting them all had an embed read the schema again per batch."""
        facts = self.runtime.facts
        for key in [k for k in facts if (k[0] if isinstance(k, tuple) else k) not in SKB_FACTS]:
            facts.pop(key, None)

    def dataframe_session(self) -> Any:
        """The distributed engine heavy steps may run on as DataFrame jobs (embedding,
        the similarity graph's kNN): a Spark session on a Spark store, None elsewhere."""
        return None

    def append_frame(self, table: str, frame: Any) -> None:
        """Add the rows of a DataFrame of ``dataframe_session()`` to ``table`` (its
        columns, in order), written by the engine's executors."""
        raise StoreError(f"internal: {type(self).__name__} takes no DataFrames")

    # -- bulk paths the loader and embedder use ------------------------------------------

    def staging_connection(self) -> Any:
        """A DuckDB connection in which the loader stages and checks an SKB: by default a
        fresh in-memory one (a DuckDB store stages in its own connection)."""
        import duckdb

        con = duckdb.connect()
        con.execute("SET preserve_insertion_order = true")
        return con

    def release_staging(self, staging: Any) -> None:
        staging.close()

    def ingest_staged(self, staging: Any, replace: bool) -> None:
        """Copy the staged SKB (temp tables of a DuckDB connection) into the store."""
        self.forget_facts()
        self._ingest_staged(staging, replace)

    @abstractmethod
    def _ingest_staged(self, staging: Any, replace: bool) -> None: ...

    def write_vectors(self, variant: str, ids: np.ndarray, vectors: np.ndarray) -> None:
        """Add vectors of ``variant`` (its table exists)."""
        check_identifier(variant, "embedding variant")
        self.forget_derived_facts()
        self._write_vectors(variant, ids, vectors)

    @abstractmethod
    def _write_vectors(self, variant: str, ids: np.ndarray, vectors: np.ndarray) -> None: ...

    def write_rows(self, table: str, columns: dict[str, np.ndarray]) -> None:
        """Append rows to ``table`` in bulk: column name → a 1-d array (int64, float or
        str/object), all of one length. DuckDB scans the arrays in place; PostgreSQL takes
        them through COPY."""
        check_identifier(table, "table")
        for name in columns:
            check_identifier(name, "column")
        if columns and len(next(iter(columns.values()))):
            self._write_rows(table, columns)

    @abstractmethod
    def _write_rows(self, table: str, columns: dict[str, np.ndarray]) -> None: ...

    def create_vector_table(self, variant: str, dim: int) -> None:
        self.forget_derived_facts()
        if self.table_exists(f"emb_{check_identifier(variant)}"):
            # Made by a DBA (`afr init --print-sql --dim`): even CREATE TABLE IF NOT EXISTS
            # needs the CREATE privilege on the schema, which a read-write role lacks.
            return
        self.run("embed/create_table.sql", variant=variant, dim=int(dim))

    def drop_vectors(self, variant: str) -> None:
        """Drop a variant's vectors and the record of the model that made them."""
        self.forget_derived_facts()
        self.run("embed/drop_table.sql", {"variant": variant},
                 variant=check_identifier(variant, "embedding variant"))

    def replace_vectors(self, variant: str, shadow: str) -> None:
        """Drop the vectors of ``variant`` and rename the (complete) ``shadow`` table to
        take their place, indexes and all; the caller records the model, in the same
        transaction."""
        self.forget_derived_facts()
        self.run("embed/swap.sql", variant=check_identifier(variant, "embedding variant"),
                 shadow=check_identifier(shadow, "embedding variant"),
                 codes=sorted(self.type_codes().values()))

    def record_embedding_model(self, variant: str, model_id: str, dim: int) -> None:
        self.forget_derived_facts()
        self.run("embed/set_model.sql", {"variant": variant, "model_id": model_id, "dim": dim},
                 variant=check_identifier(variant, "embedding variant"))

    def build_vector_index(self, variant: str, dim: int) -> list[str]:
        """Build the approximate indexes a variant (of ``dim``-dimensional vectors) lacks,
        on stores that have them; notes on those it may not build (not the table's
        owner)."""
        return []

    def vector_indexes(self) -> list[tuple[str, str, int]]:
        """(index, table, bytes) of each approximate vector index (none: exact search)."""
        return []

    def has_vector_index(self, variant: str) -> bool:
        """Whether an approximate (HNSW) index serves this variant's searches."""
        return False

    def type_codes(self) -> dict[str, int]:
        """Each node type's position among the SKB's types, sorted by name: how embedding
        tables name a type (their type_code column, and the per-type indexes)."""
        return {t: i for i, t in enumerate(sorted(self.skb_schema().node_types))}

    def type_vector_index(self, variant: str, node_type: str) -> int | None:
        """The type code of ``node_type`` when an approximate index of that type's own
        serves this variant's searches within it (PostgreSQL), else None."""
        return None

    def has_edge_lists(self) -> bool:
        """Whether the load built the adjacency lists that grounding walks instead of
        scanning edges (DuckDB: sql/load/indexes.duckdb.sql; PostgreSQL walks its B-tree
        indexes)."""
        return self.meta_fact("skb_edge_lists") == "1"

    def has_edge_presence(self) -> bool:
        """Whether the load recorded which edges each node has (``edge_presence``, one row
        per node, edge type, side and neighbour type: PostgreSQL,
        sql/load/indexes.postgres.sql), which "has some neighbour" checks probe instead
        of the edges."""
        return self.meta_fact("skb_edge_presence") == "1"

    def has_lower_texts(self) -> bool:
        """Whether the load stored every node's text lower-cased (``node_lower_texts``,
        sql/load/indexes.*.sql), which text conditions read instead of folding each text
        per question."""
        return self.meta_fact("skb_lower_texts") == "1"

    # -- schema and metadata -------------------------------------------------------------

    def init(self) -> None:
        """Create or upgrade the store's tables (idempotent)."""
        current = self.schema_version()
        if current > SCHEMA_VERSION:
            raise StoreError(
                f"store {self.location} has schema version {current}, newer than this afr "
                f"({SCHEMA_VERSION}); upgrade afr"
            )
        if current == SCHEMA_VERSION:
            return
        with self.transaction():
            for version in migration_versions(after=current):
                for stmt in self.sql(migration_file(version)):
                    self.execute(stmt)
            self.set_meta("schema_version", str(SCHEMA_VERSION))

    def schema_version(self) -> int:
        """The version of afr's tables in the store (0: none), read once per store object:
        every command asks it several times on the way in."""
        def read() -> int:
            if not self.table_exists("afr_meta"):
                return 0
            value = self.meta_fact("schema_version")  # with the rest of the meta, once
            return int(value) if value else 0

        return self.fact("schema_version", read)

    def require_initialised(self) -> None:
        if self.schema_version() != SCHEMA_VERSION:
            self.init()

    def get_meta(self, key: str) -> str | None:
        rows = self.run("meta/get.sql", {"key": key})
        return rows[0][0] if rows else None

    def meta_fact(self, key: str) -> str | None:
        """A meta value, read once per store object (until this store changes a fact)."""
        return self.fact("meta", lambda: dict(self.run("meta/all.sql"))).get(key)

    def set_meta_value(self, key: str, value: str) -> None:
        """Set a meta value that no other cached fact depends on (a version key): unlike
        ``set_meta``, the schema and the other facts stay cached."""
        self.run("meta/set.sql", {"key": key, "value": value})
        self.runtime.facts.pop("meta", None)

    def delete_meta_value(self, key: str) -> None:
        """Delete such a meta value (``set_meta_value``'s counterpart)."""
        self.run("meta/delete.sql", {"key": key})
        self.runtime.facts.pop("meta", None)

    def sidecar_dir(self) -> Path | None:
        """Where files derived from the store (memory-mapped vector matrices) live next to
        it: a folder beside a store file; None for stores that are not files."""
        return None

    def set_meta(self, key: str, value: str) -> None:
        self.forget_facts()
        self.run("meta/set.sql", {"key": key, "value": value})

    def set_meta_many(self, values: dict[str, str]) -> None:
        """Set several meta values in two statements, not two per key: on Spark each
        statement that writes is a job of its own."""
        import numpy as np

        self.forget_facts()
        keys = list(values)
        self.run("meta/delete_many.sql", {"keys": keys})
        self.write_rows("afr_meta", {
            "key": np.asarray(keys, dtype=object),
            "value": np.asarray(list(values.values()), dtype=object),
        })

    def delete_meta(self, key: str) -> None:
        self.forget_facts()
        self.run("meta/delete.sql", {"key": key})

    def skb_name(self) -> str | None:
        if "schema" in self.runtime.facts:
            return self.runtime.facts["schema"].name
        if self.schema_version() == 0:
            return None
        return self.meta_fact("skb_name")

    def require_skb(self) -> str:
        name = self.skb_name()
        if not name:
            raise StoreError(
                f"store {self.location} holds no SKB yet; load one with "
                "'afr load DIR' (or 'afr demo' for the bundled demo)"
            )
        return name

    def skb_schema(self) -> SkbSchema:
        """The loaded SKB's schema (read once per store object; treat it as read-only)."""
        return self.fact("schema", self._read_schema)

    def _read_schema(self) -> SkbSchema:
        name = self.require_skb()
        directed = self.meta_fact("skb_directed") == "true"
        description = self.meta_fact("skb_description") or ""
        node_types = {
            r.type: NodeType(r.type, r.label, r.description or "", bool(r.is_candidate))
            for r in self.run("meta/node_types.sql")
        }
        edge_types = {
            r.type: EdgeType(r.type, r.label, r.description or "", r.source_type,
                             r.target_type, None if r.directed is None else bool(r.directed))
            for r in self.run("meta/edge_types.sql",
                              with_direction=self.schema_version() >= 4)
        }
        return SkbSchema(name, description, directed, node_types, edge_types)

    def embedding_model(self, variant: str) -> tuple[str, int] | None:
        """(model id, dimensions) of the vectors of ``variant``, or None without them."""
        def read() -> tuple[str, int] | None:
            rows = self.run("meta/embedding_model.sql", {"variant": variant})
            return (rows[0].model_id, int(rows[0].dim)) if rows else None

        return self.fact(("embedding_model", variant), read)

    def node_type_counts(self) -> dict[str, int]:
        """Nodes per type (read once per store object)."""
        return self.fact("node_type_counts", lambda: {
            r.type: int(r.node_count or 0) for r in self.run("meta/node_type_counts.sql")})

    def node_details(self, ids: Sequence[int]) -> dict[int, NodeDetails]:
        """id, external id, type and name of each node of ``ids`` that exists."""
        if not len(ids):
            return {}
        rows = self.run("runlog/answer_details.sql", {"ids": [int(i) for i in ids]})
        return {int(r.id): NodeDetails(int(r.id), r.ext_id, r.type, r.name) for r in rows}


def migration_versions(after: int = 0) -> list[int]:
    """The versions above ``after`` that have a migration, in order, up to
    ``SCHEMA_VERSION`` (whose file must be there). Numbers are handed out per change, so a
    number may be missing from a tree while its change is made elsewhere."""
    found = sorted({int(p.name[:3]) for p in schema_dir().glob("[0-9][0-9][0-9]_*.sql")})
    if SCHEMA_VERSION not in found:
        raise StoreError(f"afr is missing its schema file for version {SCHEMA_VERSION}")
    return [v for v in found if after < v <= SCHEMA_VERSION]


def migration_file(version: int) -> str:
    """The portable name of a migration (``render_template`` picks a dialect's own file
    beside it, ``schema/NNN_name.<dialect>.sql``, where there is one)."""
    matches = sorted(p for p in schema_dir().glob(f"{version:03d}_*.sql")
                     if p.name.removesuffix(".sql").rpartition(".")[2] not in DIALECTS)
    if not matches:
        raise StoreError(f"afr is missing its schema file for version {version}")
    return f"schema/{matches[0].name}"


def used_params(stmt: str, params: dict[str, Any] | None) -> dict[str, Any] | None:
    # Drivers reject parameters a statement does not use (DuckDB) — pass only those it names.
    if not params:
        return None
    names = set(_PARAM.findall(stmt))
    names.update(_PG_PARAM.findall(stmt))
    names.update(_SPARK_PARAM.findall(stmt))
    used = {k: v for k, v in params.items() if k in names}
    return used or None


_PARAM = re.compile(r"\$([A-Za-z_][A-Za-z0-9_]*)")
_PG_PARAM = re.compile(r"%\(([A-Za-z_][A-Za-z0-9_]*)\)s")
_SPARK_PARAM = re.compile(r"(?<![:\w]):([A-Za-z_][A-Za-z0-9_]*)")


def redact_url(url: str) -> str:
    """A database URL (or a key=value connection string) without its password, for
    messages and `afr info`."""
    url = re.sub(r"(://[^:/@]+:)[^@]*@", r"\1***@", url)
    return re.sub(r"(\bpassword\s*=\s*)('(?:[^'\\]|\\.)*'|\S+)", r"\1***", url)

