"""Apache Spark: the SKB as Parquet tables under a warehouse folder, queried with Spark SQL.

A store URL ``spark://MASTER/DATABASE`` names the Spark master (``local[2]``: two cores of
this machine, started on demand; ``HOST:PORT``: a standalone cluster's master, whose
executors must see the warehouse folder too) and a database: the folder
``<store.spark_warehouse>/DATABASE`` holding its tables (``afr.store.spark_tables``). Each
table is a temporary view of the store's Spark session over its Parquet parts, under the
name the templates use, so ``afr sql`` reads them as tables.

``sc://HOST:PORT/DATABASE`` works through a Spark Connect server instead (pyspark's Connect
client, ``afr[spark]``): the same statements, sent over gRPC. The server reads and writes
the warehouse folder by the path this process gives it, and this process writes small
parts with DuckDB itself, so client and server must see the warehouse at the same path
(the same machine, or a shared file system mounted alike).

Statements come from the same templates as on the other stores, finished for Spark by the
dialect rule. Spark's Parquet tables take no DELETE, UPDATE or transaction, so this store
runs the writes itself (``_WRITERS``): each becomes a query whose rows are written as a
new part, and the catalogue is committed or rolled back whole. Bulk rows (vectors, index
postings, a load's staged SKB), rows made of parameters (the run log's, an eval's) and
the rewrites of tables small enough for the driver are written to Parquet by DuckDB,
without a Spark job (``afr.store.spark_driver``).

pyspark is imported only here, when a Spark store is opened.
"""

from __future__ import annotations

import json
import logging
import re
import socket
import sys
import threading
from collections.abc import Hashable, Iterator
from contextlib import AbstractContextManager, contextmanager, nullcontext, suppress
from dataclasses import dataclass
from functools import cache, lru_cache, reduce
from pathlib import Path
from typing import TYPE_CHECKING, Any

import duckdb
from sqlglot import exp, parse_one
from sqlglot.errors import SqlglotError

from afr.errors import StoreConnectionError, StoreError
from afr.progress import enabled_by_default
from afr.store.base import (
    SKB_TABLES,
    Store,
    check_identifier,
    duckdb_sql,
    migration_file,
    migration_versions,
    render_template,
)
from afr.store.dialect import DUCKDB, SPARK, sql_pieces
from afr.store.spark_batch import Gatherer, Prepared, Rows
from afr.store.spark_driver import (
    DRIVER_TABLE_BYTES,
    NotOnDriver,
    bound,
    connect,
    duckdb_form,
    duckdb_type,
    parts_relation,
    parts_size,
    plain,
)
from afr.store.spark_guard import refuse_unsafe
from afr.store.spark_lift import PREFIX, READ, VALUES_MARK, Lifted, lift
from afr.store.spark_tables import MAX_PARTS, TableCatalog, TableDef

if TYPE_CHECKING:
    import numpy as np
    from pyspark.sql import DataFrame, SparkSession

SPARK_URL = re.compile(r"^(?P<scheme>spark|sc)://(?P<master>[^/]+)/"
                       r"(?P<database>[A-Za-z_][A-Za-z0-9_]*)/?$")
URL_FORM = ("spark://local[N]/DATABASE, spark://HOST:PORT/DATABASE or "
            "sc://HOST:PORT/DATABASE")
# The writes DuckDB cannot do alone (afr.store.spark_driver): rewrites of tables up to this
# size, and INSERTs of rows made from parameters, collect their rows through Spark (one
# job) and write them with DuckDB, which spares the job that writes a part.
SMALL_TABLE_BYTES = 1 << 20
# Shuffles of afr's statements move kilobytes to megabytes: Spark's default of 200
# partitions would spend most of a statement scheduling empty tasks.
SHUFFLE_PARTITIONS = 4
# The SQL settings every afr session runs with (set when a local session starts, and on
# each Spark Connect session, whose server was started by someone else).
SQL_CONF = {
    "spark.sql.shuffle.partitions": str(SHUFFLE_PARTITIONS),
    # afr's statements are many and small: re-planning them at run time (AQE) and
    # compiling code for each costs more than it saves
    "spark.sql.adaptive.enabled": "false",
    "spark.sql.codegen.wholeStage": "false",
    "spark.sql.session.timeZone": "UTC",
    # DuckDB's semantics: NULL for a division by zero, not an error
    "spark.sql.ansi.enabled": "false",
    # users' `afr sql` reads tables, not arbitrary files of the machine
    "spark.sql.runSQLOnFiles": "false",
    # pandas in and out of DataFrames (embedding, kNN) through Arrow
    "spark.sql.execution.arrow.pyspark.enabled": "true",
}
CONNECT_PORT = 15002  # Spark Connect's own default
_CONNECT_TIMEOUT_S = 5.0
# A list longer than this is bound as one JSON text that the statement parses
# (``from_json``): pyspark binds a list as a literal array made by one py4j call per value,
# and the ~260,000 postings of a 16,384-node lexical batch at PRIME size were still being
# converted after 2.5 minutes.
JSON_LIST_MIN = 1000
_PARAM = re.compile(r"(?<![:\w]):([A-Za-z_][A-Za-z0-9_]*)")
_QUERIES = (exp.Query, exp.Describe, exp.Show)
_WORD = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
# gathered reads: no broadcast joins, one partition per shuffle (see _joins_in_one_job)
_ONE_JOB = {"spark.sql.autoBroadcastJoinThreshold": "-1", "spark.sql.shuffle.partitions": "1"}


def parse_spark_url(url: str) -> tuple[str, str]:
    """(Spark master, database) of a ``spark://MASTER/DATABASE`` URL; the master of an
    ``sc://HOST[:PORT]/DATABASE`` URL is the Spark Connect endpoint ``sc://HOST:PORT``."""
    match = SPARK_URL.match(url)
    if not match:
        raise StoreError(f"invalid Spark store URL {url!r}: write {URL_FORM}")
    master = match["master"]
    if match["scheme"] == "sc":
        host, colon, port = master.rpartition(":")
        if not colon or not port.isdigit():
            host, port = master, str(CONNECT_PORT)
        return f"sc://{host}:{port}", match["database"]
    if re.fullmatch(r"local(\[(\d+|\*)\])?", master):
        return master, match["database"]
    return f"spark://{master}", match["database"]


def is_connect(master: str) -> bool:
    """Whether ``master`` is a Spark Connect endpoint (a client of a server elsewhere)."""
    return master.startswith("sc://")


def _pyspark() -> Any:
    try:
        from pyspark.sql import SparkSession
    except ImportError:
        raise StoreError("a Spark store needs pyspark: pip install 'afr[spark]'") from None
    return SparkSession


#: Where a local master's own catalog keeps its databases, inside afr's warehouse (a
#: name no database of afr's can have): Spark's default is ./spark-warehouse, made in
#: the working folder the first time anything reads the catalog (afr load --nodes-table).
CATALOG_DIR = "spark-catalog"


def store_session(master: str, *, catalog_dir: Path | None = None) -> SparkSession:
    """A Spark session of its own for one store (its views are its own): a new session
    on the process's JVM, or on a Spark Connect server a new client session. A local
    master's catalog keeps its databases in ``catalog_dir`` (the process's first store
    sets it: the JVM reads it once)."""
    if not is_connect(master):
        return spark_session(master, catalog_dir=catalog_dir).newSession()
    _check_reachable(master)
    _pyspark()
    try:
        # the Connect client's own builder: pyspark's generic one would switch the whole
        # process to Connect mode, and local sessions of it could no longer be made
        from pyspark.sql.connect.session import SparkSession as ConnectSession

        session = ConnectSession.builder.remote(master).create()
        for key, value in SQL_CONF.items():
            session.conf.set(key, value)
    except Exception as exc:  # a server refusing us, a missing client package: one line
        raise StoreError(f"cannot use Spark Connect ({master}): {_first_line(exc)}") from None
    _quiet_statement_logs()
    return session


_PYSPARK_DEFAULT_PYTHON = "python3"  # the workers' interpreter pyspark picks by itself


@cache
def spark_session(master: str, *, catalog_dir: Path | None = None) -> SparkSession:
    """The process's Spark session for ``master`` (one JVM per process; each store works
    in a session of its own on it, for views of its own)."""
    if master.startswith("spark://"):
        _check_reachable(master)
    SparkSession = _pyspark()
    builder = (SparkSession.builder.master(master).appName("afr")
               .config("spark.ui.enabled", "false")
               .config("spark.ui.showConsoleProgress", "false"))
    if catalog_dir is not None and master.startswith("local"):
        builder = builder.config("spark.sql.warehouse.dir", str(catalog_dir))
    for key, value in SQL_CONF.items():
        builder = builder.config(key, value)
    try:
        session = builder.getOrCreate()
    except Exception as exc:  # Java missing, a master refusing us: one line, no trace
        raise StoreError(f"cannot start Spark ({master}): {_first_line(exc)}") from None
    context = session.sparkContext
    if master.startswith("local") and context.pythonExec == _PYSPARK_DEFAULT_PYTHON:
        # A local master's Python workers run here: with afr's own interpreter, not the
        # first `python3` on PATH (pyspark's default where $PYSPARK_PYTHON names none),
        # which lacks afr's packages when afr runs from a virtualenv that is not
        # activated (`/path/to/venv/bin/afr …`). pyspark reads each Python function's
        # interpreter from here.
        context.pythonExec = sys.executable
    context.setLogLevel("OFF")
    _quiet_statement_logs()
    return session


def _quiet_statement_logs() -> None:
    # pyspark logs every failed statement, with its Java stack, as JSON on stderr; afr
    # reports the error itself, on one line
    for logger in ("SQLQueryContextLogger", "DataFrameQueryContextLogger"):
        logging.getLogger(logger).disabled = True


def _check_reachable(master: str) -> None:
    """A socket to the master's (or Connect server's) port, before any Spark starts: an
    address nobody listens on is one line at once, not a client retrying for minutes."""
    scheme, _, address = master.partition("://")
    host, _, port = address.rpartition(":")
    what = "Spark Connect server" if scheme == "sc" else "Spark master"
    try:
        socket.create_connection((host, int(port)), timeout=_CONNECT_TIMEOUT_S).close()
    except (OSError, ValueError) as exc:
        raise StoreError(f"cannot reach the {what} {master}: "
                         f"{getattr(exc, 'strerror', None) or exc}") from None


@cache
def json_columns() -> frozenset[str]:
    """Columns afr's schema declares JSON (Spark keeps them as text): results decode the
    columns of these names, as DuckDB's and psycopg's drivers decode JSON columns."""
    names: set[str] = set()
    for version in migration_versions():
        for stmt in render_template(migration_file(version), DUCKDB):
            for column in parse_one(stmt, read="duckdb").find_all(exp.ColumnDef):
                kind = column.args.get("kind")
                if kind is not None and kind.this == exp.DataType.Type.JSON:
                    names.add(column.name)
    return frozenset(names)


def _is_show(statement: exp.Expression) -> bool:
    """SHOW TABLES, SHOW COLUMNS …: sqlglot's Spark dialect keeps them as commands it does
    not parse (exp.Show is MySQL's); each only lists what the catalogue holds."""
    return isinstance(statement, exp.Command) and str(statement.this).upper() == "SHOW"


def _not_a_command_fallback(record: logging.LogRecord) -> bool:
    """sqlglot warns on stderr when it keeps a statement it cannot parse (SHOW TABLES) as
    a command; Spark judges those, and `afr sql "SHOW TABLES"` should print only tables."""
    return "Falling back to parsing as a 'Command'" not in record.getMessage()


logging.getLogger("sqlglot").addFilter(_not_a_command_fallback)


@lru_cache(maxsize=2048)
def _parsed(sql: str) -> exp.Expression:
    try:
        return parse_one(sql, read="spark")
    except SqlglotError:
        return exp.Command(this=sql)  # Spark itself judges it (and names the error)


class SparkStore(Store):
    dialect = SPARK
    # A job costs about a second to schedule, so a batch is wide: a 1,000-node batch of the
    # lexical index cost ~20 jobs (38-50 s under load at PRIME size: about 1.5 hours for
    # 130,000 nodes), 16,384 make it 8 batches; an embedding chunk is one job and one
    # commit, so an interrupted embed loses at most one.
    document_batch = 16384
    # BM25 scores from a postings file beside the warehouse, as vector search reads its
    # matrix files: each BM25 statement was a job of some eight stages (1.0-2.4 s on the
    # demo, 6 of an af ask's 25 statements and over half its time). The file is written
    # from rows collected on the driver, so only up to ~10M postings (160 MB; PRIME
    # size has 2.1M): past that BM25 stays in SQL, on the executors.
    maps_postings = True
    postings_file_max = 10_000_000

    def __init__(self, url: str, *, warehouse: str | Path, read_only: bool = False,
                 create: bool = True, batch: int = 1, gather_ms: int = 1000) -> None:
        super().__init__()
        master, database = parse_spark_url(url)
        self.url = url
        root = Path(warehouse).expanduser().resolve() / database
        if "'" in str(root):
            raise StoreError(f"the Spark warehouse path {root} may not contain a quote")
        self.location = f"{url} ({root})"
        self.read_only = read_only
        self.tables = TableCatalog(root)
        if (read_only or not create) and not self.tables.exists():
            raise StoreError(f"no Spark store at {root}; create one with 'afr load DIR'")
        self.connect = is_connect(master)
        # a warehouse folder that reading the catalog alone made is removed again on close
        self._new_warehouse = not root.parent.exists()
        self.spark = store_session(master, catalog_dir=root.parent / CATALOG_DIR)
        self._temps: set[str] = set()
        self.question_batch = batch
        self.gatherer = Gatherer(self._query_together, batch=batch, window_s=gather_ms / 1000,
                                 prepare=self._prepare_read)
        self._refused: set[str] = set()  # statements Spark would not run inside a union
        self._unlifted: set[str] = set()  # statements Spark would not run lifted
        self._shapes: dict[Hashable, Hashable] = {}  # (text, types of values): shape
        self._shape_locks: dict[Hashable, threading.Lock] = {}
        self._shapes_guard = threading.Lock()
        #: Lifted statements run, and the reads they answered (what lifting saved).
        self.lifted_runs = 0
        self.lifted_reads = 0
        self._views_lock = threading.RLock()
        self._stale_views: set[str] = set(self.tables.tables)  # views defined when named

    # -- views ------------------------------------------------------------------------

    def _register(self, name: str) -> None:
        """Mark the view ``name`` for (re)definition over the table's current parts, done
        when a statement next names the table (``_spark_sql``): defining a view costs
        Spark ~30 ms on the driver, and a store has some 47 tables, most of which a
        command never reads (opening a store defined them all: 1.4 s before ``afr sql``
        ran anything). A table that no longer exists loses its view now."""
        with self._views_lock:
            if name in self.tables.tables:
                self._stale_views.add(name)
                return
            self._stale_views.discard(name)
        self.spark.catalog.dropTempView(name)

    def _define_views(self, sql: str) -> None:
        """Define the views marked by ``_register`` that ``sql`` names (a word of its
        text; a name in a string literal only defines a view early); all of them for a
        SHOW, which lists them (wherever the word stands: a comment may come first)."""
        if not self._stale_views:
            return
        words = {word.lower() for word in _WORD.findall(sql)}
        with self._views_lock:
            named = set(self._stale_views) if "show" in words else self._stale_views & words
            for name in sorted(named):
                table = self.tables.tables[name]
                paths = [str(self.tables.root / part) for part in table.parts]
                reader = self.spark.read.schema(table.ddl())
                frame = reader.parquet(*paths) if paths else self.spark.createDataFrame(
                    [], table.ddl())
                frame.createOrReplaceTempView(name)
                self._stale_views.discard(name)

    def _spark_sql(self, sql: str, args: dict[str, Any] | None = None) -> DataFrame:
        """``spark.sql`` with the views of the tables the statement names defined first."""
        self._define_views(sql)
        return self.spark.sql(sql, args or None)

    def table_exists(self, table: str) -> bool:
        return table in self.tables.tables or table in self._temps

    def sidecar_dir(self) -> Path | None:
        return self.tables.root / "vectors"

    def catalog_table_exists(self, name: str) -> bool:
        # afr's own tables are views named by one name, which the loader refuses
        with _spark_errors():
            return bool(self.spark.catalog.tableExists(name))

    def view_catalog_table(self, name: str, con: Any, view: str) -> None:
        """The table as Arrow on the driver, which the load stages and checks as it does
        a file: Spark reads it in whatever format its catalog keeps it (Delta, Iceberg,
        Parquet, Hive …), with the readers the session was configured with."""
        with _spark_errors(), self._progress(f"reading {name}"):
            con.register(view, self.spark.table(name).toArrow())

    # -- statements --------------------------------------------------------------------

    def _execute(self, sql: str, params: dict[str, Any] | None) -> None:
        self._fetch(sql, params)

    def query_with_columns(
        self, sql: str, params: dict[str, Any] | None = None, *, max_rows: int | None = None
    ) -> tuple[list[str], list[tuple]]:
        # A read of an eval thread waits for the others' reads of its result shape (see
        # afr.store.spark_batch); one inside a transaction or under the lock runs now.
        if (max_rows is None and self.gatherer.is_joined() and not self.lock._is_owned()
                and isinstance(_parsed(sql), exp.Query)):
            self.statements += 1
            return self.gatherer.read(sql, params)
        return super().query_with_columns(sql, params, max_rows=max_rows)

    def gathering(self) -> Any:
        return self.gatherer.joined() if self.question_batch > 1 else super().gathering()

    def _prepare_read(self, sql: str, params: dict[str, Any] | None
                      ) -> tuple[Hashable, Any]:
        """Who a gathered read may run with: the reads of its result shape (``_shape``).
        A statement that afr.store.spark_lift can lift is analysed once per text and
        types of values (its shape kept), not once per read: in the union its reads are
        one branch, the statement lifted over their parameters."""
        lifted = None if sql in self._unlifted else lift(sql)
        if lifted is None or lifted.shared:
            return self._shape(sql, params)
        known = (sql, _signature(lifted, params))
        with self._analysing(known):  # the batch's others wait for the first's shape
            key = self._shapes.get(known)
            if key is not None:  # the text passed the read-only check when analysed
                return key, _Liftable(lifted, None)
            key, frame = self._shape(sql, params)
            if frame is None:
                return key, None
            self._shapes[known] = key
            return key, _Liftable(lifted, frame)

    def _analysing(self, known: Hashable) -> threading.Lock:
        with self._shapes_guard:
            return self._shape_locks.setdefault(known, threading.Lock())

    def _shape(self, sql: str, params: dict[str, Any] | None) -> tuple[Hashable, Any]:
        """Who a gathered read may run with: the reads whose result schema (column names
        and types, from Spark's analysis of the bound statement, which runs no job) is
        exactly its own, so that no value of a union changes type. The analysed
        DataFrame is kept for the union. A statement Spark cannot analyse, or one refused
        in a union before, runs alone (and gives its own error)."""
        alone = ("alone", object())
        if sql in self._refused:
            return alone, None
        try:
            if self.read_only:
                refuse_unsafe(_parsed(sql))  # checked before Spark sees it, as alone
            with _spark_errors():
                frame = self._spark_sql(*_bind(sql, params))
                return _schema_key(frame.schema), frame
        except StoreError:
            return alone, None

    def _query_together(self, reads: list[Prepared]) -> list[Rows | BaseException]:
        """The rows of each read: one union when there are several (and Spark takes
        them as one), else each on its own, its error kept as its outcome."""
        with self.lock, self._joins_in_one_job():
            union = len(reads) > 1 and all(prepared is not None for _, _, prepared in reads)
            outcomes: list[Rows | BaseException | None] = [None] * len(reads)
            failed = False
            if union:
                try:
                    outcomes = self._union_of(reads)  # type: ignore[assignment]
                except StoreError:  # one statement failed, or Spark refused the union
                    failed = True
            for i, (sql, params, _) in enumerate(reads):
                if outcomes[i] is None:
                    try:
                        outcomes[i] = self._fetch(sql, params)
                    except Exception as exc:  # noqa: BLE001 - raised in its caller's thread
                        outcomes[i] = exc
            if failed and not any(isinstance(o, BaseException) for o in outcomes):
                # Spark refused the union of statements it runs alone: which of them it
                # could not take with the others is unknown, so each now runs alone
                self._refused.update(sql for sql, _, _ in reads)
                self._unlifted.update(sql for sql, _, _ in reads)
            return outcomes  # type: ignore[return-value]

    def _union_of(self, reads: list[Prepared]) -> list[Rows | None]:
        """The union's branches: per text that can be lifted, one branch for the callers
        whose values the lifted statement takes (``_takes``, ``_one_type_each``; the
        others run alone, None here); every other read a branch of its own (its
        analysed statement)."""
        frames: list[DataFrame] = []
        callers: list[list[int]] = []
        texts: dict[str, list[int]] = {}
        for i, (sql, _, prepared) in enumerate(reads):
            if isinstance(prepared, _Liftable):
                texts.setdefault(sql, []).append(i)
            else:
                frames.append(prepared)
                callers.append([i])
        for sql, mine in texts.items():
            lifted = reads[mine[0]][2].lifted
            takes = [i for i in mine if _takes(lifted, reads[i][1])]
            frame = None
            if len(takes) > 1 and _one_type_each(lifted, [reads[i][1] for i in takes]):
                frame = self._lifted_frame(sql, lifted, [reads[i][1] for i in takes])
            if frame is not None:
                frames.append(frame)
                callers.append(takes)
            else:
                for i in takes:
                    sql_i, params, prepared = reads[i]
                    frames.append(prepared.frame if prepared.frame is not None
                                  else self.frame(sql_i, params))
                    callers.append([i])
        if not frames:
            return [None] * len(reads)
        rows = self._union(frames, callers)
        lifted_runs = [c for c in callers if len(c) > 1]
        self.lifted_runs += len(lifted_runs)
        self.lifted_reads += sum(map(len, lifted_runs))
        outcomes: list[Rows | None] = [None] * len(reads)
        for mine, got in zip(callers, rows, strict=True):
            for i, part in zip(mine, got, strict=True):
                outcomes[i] = part
        return outcomes

    def _lifted_frame(self, sql: str, lifted: Lifted, params: list[dict[str, Any]]
                      ) -> DataFrame | None:
        """The lifted statement with the callers' values as the rows of ``afr_p`` (each
        value bound as it would be alone), analysed; None (and the text not lifted
        again) when Spark refuses it."""
        args: dict[str, Any] = {}
        rows_sql = []
        for i, values in enumerate(params):
            cells = [str(i)]
            for name in lifted.params:
                key = f"afr{i}_{name}"
                text, bound_args = _bind(f":{key}", {key: values[name]})
                cells.append(text)
                args.update(bound_args or {})
            rows_sql.append(f"({', '.join(cells)})")
        names = ", ".join([READ, *(PREFIX + n for n in lifted.params)])
        statement = lifted.sql.replace(
            VALUES_MARK, f"VALUES {', '.join(rows_sql)} AS afr_pv({names})")
        try:
            with _spark_errors():
                return self._spark_sql(statement, args)
        except StoreError:
            self._unlifted.add(sql)
            return None

    @contextmanager
    def _joins_in_one_job(self) -> Iterator[None]:
        """Joins by shuffles, stages of the statement's one job: a broadcast join is a job
        of its own (per branch of a union, whose values differ so that Spark cannot reuse
        one branch's), and a BM25 read had nine of them. And one partition per shuffle:
        an ORDER BY over several partitions samples its input in a job of its own (per
        branch: a union of 12 groundings ran 13 jobs), one partition needs no sample;
        the branches' stages still run side by side. The lock is held."""
        conf = self.spark.conf
        saved = {name: conf.get(name) for name in _ONE_JOB}
        for name, value in _ONE_JOB.items():
            conf.set(name, value)
        try:
            yield
        finally:
            for name, value in saved.items():
                conf.set(name, value)

    def _union(self, frames: list[DataFrame], callers: list[list[int]] | None = None
               ) -> list[list[Rows]]:
        """Several analysed reads of one result schema as one Spark query: a UNION ALL of
        the DataFrames, each row tagged with its branch; per branch, the rows of each of
        its callers. A branch is one read (bound to its own parameters), or, where
        ``callers`` lists several, a lifted statement whose rows carry their caller's
        position among them. A branch keeps its statement's
        order and limit (Spark concatenates a union's branches; a branch's CTEs are its
        own)."""
        from pyspark.sql import functions

        callers = callers or [[i] for i in range(len(frames))]
        tagged = []
        for branch, (frame, mine) in enumerate(zip(frames, callers, strict=True)):
            tags = [functions.lit(branch).alias("afr_branch")]
            if len(mine) == 1:
                tags.append(functions.lit(0).alias(READ))
            tagged.append(frame.select(*tags, "*"))
        if len({_fields_key(t.schema.fields[2:]) for t in tagged}) > 1:
            raise StoreError("Spark: a lifted statement changed a column's type")
        with _spark_errors(), self._progress("spark query"):
            columns, rows = self._rows(reduce(type(tagged[0]).unionAll, tagged))
        split: list[list[list[tuple]]] = [[[] for _ in mine] for mine in callers]
        for row in rows:
            split[row[0]][row[1]].append(row[2:])
        return [[(columns[2:], part) for part in parts] for parts in split]

    def _fetch(self, sql: str, params: dict[str, Any] | None, max_rows: int | None = None
               ) -> tuple[list[str], list[tuple]]:
        statement = _parsed(sql)
        if self.read_only:
            refuse_unsafe(statement)
        if isinstance(statement, _QUERIES) or _is_show(statement):
            return self._query(sql, params, max_rows)
        if self.read_only:
            first = sql.split(None, 1)[0].upper()
            if first in ("SELECT", "WITH", "VALUES", "FROM", "TABLE"):
                raise StoreError("a read-only Spark store runs only queries it can check "
                                 "before Spark sees them, and this one does not parse")
            raise StoreError("a read-only store runs queries only (SELECT, WITH, VALUES, "
                             f"DESCRIBE, SHOW), not {first}")
        writer = _writer(statement)
        if writer is None:  # SET, CACHE, a temporary view: Spark's own business
            return self._query(sql, params)
        with self._transaction():
            writer(self, statement, params)
        return [], []

    def _query(self, sql: str, params: dict[str, Any] | None, max_rows: int | None = None
               ) -> tuple[list[str], list[tuple]]:
        with _spark_errors(), self._progress("spark query"):
            return self._rows(self._spark_sql(*_bind(sql, params)), max_rows)

    @staticmethod
    def _rows(frame: DataFrame, max_rows: int | None = None
              ) -> tuple[list[str], list[tuple]]:
        """The frame's columns and rows, its JSON columns decoded (Spark errors raised
        as they come: the caller turns them into afr's)."""
        rows = frame.collect() if max_rows is None else frame.take(max_rows)
        columns = frame.columns
        decode = [i for i, c in enumerate(columns) if c in json_columns()]
        out = []
        for row in rows:
            values = list(row)
            for i in decode:
                if isinstance(values[i], str):
                    values[i] = json.loads(values[i])
            out.append(tuple(values))
        return columns, out

    def frame(self, sql: str, params: dict[str, Any] | None = None) -> DataFrame:
        """The rows of a query as a Spark DataFrame (not yet computed)."""
        with _spark_errors():
            return self._spark_sql(*_bind(sql, params))

    def _progress(self, desc: str) -> AbstractContextManager[None]:
        """Spark's progress of the statement run in the block, as afr's bar (when shown)."""
        shown = enabled_by_default() if self.progress is None else self.progress
        if not shown or self.connect:  # a Connect client sees no SparkContext
            return nullcontext()
        from afr.store.spark_progress import statement_progress

        return statement_progress(self.spark.sparkContext, desc)

    @contextmanager
    def _transaction(self) -> Iterator[None]:
        with self.lock:
            if self.tables.in_transaction:
                yield
                return
            self.transactions += 1
            self.tables.begin()
            changed = set(self.tables.tables)
            try:
                yield
            except BaseException:
                changed |= set(self.tables.tables)
                self.tables.rollback()
                for name in changed:
                    self._register(name)
                raise
            else:
                self.tables.commit()

    def close(self) -> None:
        self.runtime.close()
        if self.connect:  # the server's session, with its views, ends with the client's
            self.spark.stop()
            return
        for name in [*self.tables.tables, *self._temps]:
            self.spark.catalog.dropTempView(name)
        warehouse = self.tables.root.parent
        with suppress(OSError):  # the catalog's folder, where reading it made it empty
            (warehouse / CATALOG_DIR).rmdir()
            if self._new_warehouse:
                warehouse.rmdir()

    def dataframe_session(self) -> SparkSession:
        return self.spark

    def append_frame(self, table: str, frame: DataFrame) -> None:
        with self.transaction():
            self._append(check_identifier(table, "table"), frame, local=False)

    # -- writes -------------------------------------------------------------------------

    def _append(self, name: str, frame: DataFrame, *, local: bool) -> None:
        """Add the rows of ``frame`` to table ``name`` as a new part: written by Spark, or
        (``local``: a few rows) collected and written by DuckDB, which spares a Spark job."""
        table = self.tables.table(name)
        if local:
            self._write_collected(name, frame)
        else:
            relative, path = self.tables.new_part(name)
            with _spark_errors(), self._progress(f"spark: {name}"):
                frame.write.parquet(str(path))
            table.parts.append(relative)
            self._register(name)
        self._fold_if_many(name)

    def _fold_if_many(self, name: str) -> None:
        """Past MAX_PARTS parts, the table's rows become one part: by DuckDB when the
        table is small enough for the driver, else by Spark."""
        if len(self.tables.table(name).parts) > MAX_PARTS and \
                not self._rewrite_on_driver(name, None, None):
            self._rewrite(name, self.frame(f"SELECT * FROM {name}"))

    def _append_from_params(self, name: str, select: str, params: dict[str, Any] | None
                            ) -> bool:
        """Add the rows of ``select`` (Spark SQL reading no table: rows made of
        parameters) as a part DuckDB computes and writes; False when DuckDB cannot."""
        con = connect()
        try:
            sql = duckdb_form(select)
            con.execute(f"CREATE TEMP TABLE afr_new AS {sql}", bound(sql, params))
            (count,) = con.execute("SELECT count(*) FROM afr_new").fetchone()
        except (NotOnDriver, duckdb.Error):
            con.close()
            return False
        try:
            if count:
                self._adopt_duckdb(name, con, "afr_new")
        finally:
            con.close()
        self._fold_if_many(name)
        return True

    def _rewrite_on_driver(self, name: str, rows: str | None, params: dict[str, Any] | None,
                           *, touched: str | None = None) -> bool:
        """Replace the rows of table ``name`` by those of ``rows`` (a Spark SELECT that
        reads the table by its name; None: its rows as they are, folded into one part),
        read and written by DuckDB; nothing is written when the condition ``touched``
        matches no row. False (and nothing done) when the table is too big for the
        driver or DuckDB cannot run the statement."""
        table = self.tables.table(name)
        if parts_size(self.tables.root, table.parts) > DRIVER_TABLE_BYTES:
            return False
        con = connect()
        try:
            try:
                parts_relation(con, self.tables.root, table, name)
                if touched is not None:
                    sql = duckdb_form(f"SELECT count(*) FROM {name} WHERE {touched}")
                    (count,) = con.execute(sql, bound(sql, params)).fetchone()
                    if not count:
                        return True
                sql = duckdb_form(rows) if rows is not None else f"SELECT * FROM {name}"
                con.execute(f"CREATE TEMP TABLE afr_kept AS {sql}", bound(sql, params))
                (count,) = con.execute("SELECT count(*) FROM afr_kept").fetchone()
            except (NotOnDriver, duckdb.Error):
                return False
            # the old parts stay on disk (and readable) until the transaction commits
            table.parts = []
            if count:
                self._adopt_duckdb(name, con, "afr_kept")
            self._register(name)
        finally:
            con.close()
        return True

    def _rewrite(self, name: str, frame: DataFrame | None) -> None:
        """Replace every row of table ``name`` by those of ``frame`` (None: no rows)."""
        table = self.tables.table(name)
        old, table.parts = table.parts, []
        if frame is not None:
            # the old parts stay on disk (and readable) until the transaction commits
            self._append(name, frame, local=self.is_small(name, parts=old))
        self._register(name)

    def is_small(self, name: str, *, parts: list[str] | None = None) -> bool:
        """Whether table ``name`` (or the given parts of it) is small enough to collect."""
        table = self.tables.tables.get(name)
        if table is None:
            return name in self._temps
        size = parts_size(self.tables.root, table.parts if parts is None else parts)
        return size <= SMALL_TABLE_BYTES

    def _write_collected(self, name: str, frame: DataFrame) -> None:
        with _spark_errors(), self._progress(f"spark: {name}"):
            rows = frame.collect()
        if not rows:
            return
        import numpy as np

        columns = {}
        for (column, _), values in zip(self.tables.table(name).columns, zip(*rows, strict=True),
                                       strict=True):
            array = np.empty(len(values), dtype=object)
            array[:] = values
            columns[column] = array
        con = duckdb.connect()
        try:
            con.register("afr_collected", columns)
            self._adopt_duckdb(name, con, "afr_collected")
        finally:
            con.close()

    def _adopt_duckdb(self, name: str, con: duckdb.DuckDBPyConnection, source: str) -> None:
        """Add the rows of DuckDB relation ``source`` (on ``con``) to table ``name``: DuckDB
        writes them as a Parquet part in the table's column types, no Spark job."""
        table = self.tables.table(name)
        relative, path = self.tables.new_part(name)
        path.mkdir(parents=True)
        columns = [(column, duckdb_type(kind)) for column, kind in table.columns]
        for stmt in duckdb_sql("spark/write_part.sql", columns=columns, source=source,
                               path=str(path / "part-00000.parquet")):
            con.execute(stmt)
        table.parts.append(relative)
        self._register(name)

    # -- bulk paths ---------------------------------------------------------------------

    def _ingest_staged(self, staging: Any, replace: bool) -> None:
        if replace:
            for stmt in self.sql("load/clear.sql", tables=SKB_TABLES):
                self.execute(stmt)
        for table in ("nodes", "node_aliases", "edges"):
            (select,) = duckdb_sql("spark/staged.sql", table=table)
            self._adopt_duckdb(table, staging, f"({select})")

    def _write_vectors(self, variant: str, ids: np.ndarray, vectors: np.ndarray) -> None:
        import numpy as np

        matrix = np.ascontiguousarray(vectors, dtype=np.float32)
        rows = np.empty(len(matrix), dtype=object)
        rows[:] = list(matrix)
        self._write_rows(f"emb_{variant}", {"node_id": np.asarray(ids, dtype=np.int64),
                                            "vec": rows})

    def _write_rows(self, table: str, columns: dict[str, np.ndarray]) -> None:
        con = duckdb.connect()
        try:
            con.register("afr_rows_batch", columns)
            given = set(columns)
            missing = [c for c, _ in self.tables.table(table).columns if c not in given]
            source = "(SELECT *" + "".join(f", NULL AS {c}" for c in missing) + \
                " FROM afr_rows_batch)"
            with self.transaction():
                self._adopt_duckdb(table, con, source)
        finally:
            con.close()


# -- the writers: one per kind of statement that changes a table ---------------------------


def _writer(statement: exp.Expression) -> Any:
    for kind, writer in _WRITERS:
        if isinstance(statement, kind):
            return writer(statement)
    return None


def _table_name(node: exp.Expression) -> str:
    table = node if isinstance(node, exp.Table) else node.find(exp.Table)
    if table is None:
        raise StoreError("internal: a write without a table")
    return check_identifier(table.name, "table")


def _insert(store: SparkStore, statement: exp.Insert, params: dict | None) -> None:
    target = statement.this
    name = _table_name(target)
    table = store.tables.table(name)
    given = [c.name for c in target.expressions] if isinstance(target, exp.Schema) else \
        [c for c, _ in table.columns]
    source = statement.expression.sql("spark")
    select = _insert_select(table, given, source)
    # rows made of parameters are DuckDB's to compute and write; rows read from tables
    # are written by Spark
    local = statement.expression.find(exp.Table) is None
    if local and store._append_from_params(name, select, params):
        return
    store._append(name, store.frame(select, params), local=local)


def _insert_select(table: TableDef, given: list[str], source: str) -> str:
    """The rows an INSERT adds, in the table's columns and types (defaults filled in)."""
    aliases = [f"c{i}" for i in range(len(given))]
    picked = dict(zip(given, aliases, strict=True))
    outputs = []
    for column, kind in table.columns:
        value = f"afr_src.{picked[column]}" if column in picked else \
            table.defaults.get(column, "NULL")
        outputs.append(f"CAST({value} AS {kind}) AS `{column}`")
    return (f"SELECT {', '.join(outputs)} FROM ({source}) AS afr_src"
            f"({', '.join(aliases)})")


def _delete(store: SparkStore, statement: exp.Delete, params: dict | None) -> None:
    name = _table_name(statement.this)
    where = statement.args.get("where")
    if where is None:
        store._rewrite(name, None)
        return
    condition = f"COALESCE(({where.this.sql('spark')}), FALSE)"
    keep = f"SELECT * FROM {name} WHERE NOT {condition}"
    if not store._rewrite_on_driver(name, keep, params, touched=condition):
        store._rewrite(name, store.frame(keep, params))


def _update(store: SparkStore, statement: exp.Update, params: dict | None) -> None:
    name = _table_name(statement.this)
    table = store.tables.table(name)
    where = statement.args.get("where")
    condition = f"COALESCE(({where.this.sql('spark')}), FALSE)" if where else "TRUE"
    sets = {e.this.name: e.expression.sql("spark") for e in statement.expressions}
    outputs = [
        f"CASE WHEN {condition} THEN CAST(({sets[c]}) AS {kind}) ELSE `{c}` END AS `{c}`"
        if c in sets else f"`{c}`" for c, kind in table.columns]
    rows = f"SELECT {', '.join(outputs)} FROM {name}"
    if not store._rewrite_on_driver(name, rows, params, touched=condition):
        store._rewrite(name, store.frame(rows, params))


def _truncate(store: SparkStore, statement: exp.TruncateTable, params: dict | None) -> None:
    for table in statement.expressions:
        store._rewrite(_table_name(table), None)


def _create(store: SparkStore, statement: exp.Create, params: dict | None) -> None:
    name = _table_name(statement.this)
    if statement.kind == "VIEW":  # a temporary table of the DuckDB template, computed now
        frame = store.frame(statement.expression.sql("spark"), params).localCheckpoint()
        frame.createOrReplaceTempView(name)
        store._temps.add(name)
        return
    if name in store.tables.tables:
        if statement.args.get("exists"):
            return
        raise StoreError(f"Spark: table {name!r} exists already")
    columns, defaults = [], {}
    for column in statement.this.find_all(exp.ColumnDef):
        columns.append((column.name, column.args["kind"].sql("spark")))
        for constraint in column.constraints:
            if isinstance(constraint.kind, exp.DefaultColumnConstraint):
                defaults[column.name] = constraint.kind.this.sql("spark")
    store.tables.tables[name] = TableDef(columns, defaults)
    store._register(name)


def _drop(store: SparkStore, statement: exp.Drop, params: dict | None) -> None:
    # sqlglot keeps a DROP's tables in "tables" (a list; "this" is empty)
    for table in statement.args.get("tables") or [statement.this]:
        _drop_one(store, _table_name(table), exists=bool(statement.args.get("exists")))


def _drop_one(store: SparkStore, name: str, *, exists: bool) -> None:
    if name in store._temps:
        store._temps.discard(name)
        store.spark.catalog.dropTempView(name)
    elif name in store.tables.tables:
        del store.tables.tables[name]
        store._register(name)
    elif not exists:
        raise StoreError(f"Spark: no table {name!r} to drop")


def _alter(store: SparkStore, statement: exp.Alter, params: dict | None) -> None:
    name = _table_name(statement.this)
    for action in statement.args.get("actions") or []:
        if isinstance(action, exp.AlterRename):
            new = _table_name(action.this)
            if name in store._temps:
                store.spark.table(name).createOrReplaceTempView(new)
                store.spark.catalog.dropTempView(name)
                store._temps.discard(name)
                store._temps.add(new)
            else:
                store.tables.tables[new] = store.tables.tables.pop(name)
                store._register(name)
                store._register(new)
        elif isinstance(action, exp.ColumnDef):
            table = store.tables.table(name)
            if action.name in dict(table.columns):
                if action.args.get("exists"):
                    continue
                raise StoreError(f"Spark: column {action.name!r} of {name!r} exists already")
            table.columns.append((action.name, action.args["kind"].sql("spark")))
            store._register(name)
        else:
            raise StoreError(f"Spark: afr cannot run {statement.sql('spark')[:60]!r}")


_WRITERS: tuple[tuple[type, Any], ...] = (
    (exp.Insert, lambda s: _insert),
    (exp.Delete, lambda s: _delete),
    (exp.Update, lambda s: _update),
    (exp.TruncateTable, lambda s: _truncate),
    (exp.Create, lambda s: _create if s.kind in ("TABLE", "VIEW") else None),
    (exp.Drop, lambda s: _drop if s.kind in ("TABLE", "VIEW") else None),
    (exp.Alter, lambda s: _alter),
)


# -- values in and errors out -----------------------------------------------------------


def _bind(sql: str, params: dict[str, Any] | None) -> tuple[str, dict[str, Any] | None]:
    """The statement and the parameters it names (``:name``), as values Spark binds.

    Spark binds no list holding a NULL among other values (it would have to cast the
    NULL, and takes only literals): such a list is written into the statement instead, as
    an array of literals rendered and quoted by sqlglot."""
    if not params:
        return sql, None
    names = {m for is_code, piece in sql_pieces(sql) if is_code
             for m in _PARAM.findall(piece)}
    args: dict[str, Any] = {}
    inline: dict[str, str] = {}
    for name, value in params.items():
        if name not in names:
            continue
        value = plain(value)
        kind = _json_list_type(value)
        if isinstance(value, list) and None in value:
            inline[name] = exp.Array(expressions=[exp.convert(v) for v in value]).sql("spark")
        elif kind:
            inline[name] = f"from_json(:{name}, '{kind}')"
            args[name] = json.dumps(value)
        else:
            args[name] = value
    if inline:
        sql = "".join(
            _PARAM.sub(lambda m: inline.get(m.group(1), m.group(0)), piece) if is_code
            else piece for is_code, piece in sql_pieces(sql))
    return sql, args or None


@dataclass(frozen=True)
class _Liftable:
    """A gathered read whose statement can be lifted; the first of its text and types of
    values keeps the DataFrame its analysis made."""

    lifted: Lifted
    frame: DataFrame | None


def _value_type(value: Any) -> Hashable:
    """What of a value decides how Spark binds it, hence the types of the statement's
    columns: its type; for a list, its values' types, a NULL among them, and whether it
    goes as JSON (see ``_bind``)."""
    value = plain(value)
    if isinstance(value, list):
        return ("list", frozenset(type(v) for v in value if v is not None), None in value,
                _json_list_type(value))
    return type(value)


def _signature(lifted: Lifted, params: dict[str, Any] | None) -> Hashable:
    return tuple(_value_type((params or {}).get(name, _MISSING)) for name in lifted.params)


_MISSING = object()


def _takes(lifted: Lifted, params: dict[str, Any] | None) -> bool:
    """Whether a caller's values can be a row of the lifted statement's parameters:
    every parameter bound, every LIMIT a non-negative integer (else it runs as its own
    statement and gets its own error)."""
    if params is None or any(name not in params for name in lifted.params):
        return False
    return all(type(plain(params[n])) is int and plain(params[n]) >= 0
               for n in lifted.limits)


def _one_type_each(lifted: Lifted, params: list[dict[str, Any]]) -> bool:
    """Whether each parameter has values of one type among the callers (NULLs aside):
    a VALUES table has one type per column, and a value Spark widened to another's type
    (an integer to a double) could compute otherwise."""
    for name in lifted.params:
        kinds = {_value_type(p[name]) for p in params if p[name] is not None}
        lists = [k for k in kinds if isinstance(k, tuple)]
        if len(kinds) - len(lists) + bool(lists) > 1:
            return False
        if len(set().union(*(k[1] for k in lists))) > 1:
            return False
    return True


def _schema_key(schema: Any) -> tuple[str, tuple[tuple[str, str], ...]]:
    """A result schema as a key: its columns' names and types in order (nested types
    with their fields' names and types; nullability left out, as a union changes no
    value for it)."""
    return "shape", _fields_key(schema.fields)


def _fields_key(fields: Any) -> tuple[tuple[str, str], ...]:
    return tuple((f.name, f.dataType.simpleString()) for f in fields)


def _json_list_type(value: Any) -> str | None:
    """The Spark type of a list bound as one JSON text (``array<…>``): lists longer than
    JSON_LIST_MIN of one plain type, and lists of integers one of which needs 64 bits
    (pyspark makes such a list an array of INT and BIGINT literals, which Spark refuses
    to bind: INVALID_SQL_ARG). None for every other value."""
    if not isinstance(value, list):
        return None
    kinds = {type(v) for v in value}
    wide = kinds == {int} and any(not -2**31 <= v < 2**31 for v in value)
    if len(value) <= JSON_LIST_MIN and not wide:
        return None
    for types, kind in (({bool}, "boolean"), ({int}, "bigint"), ({str}, "string"),
                        ({float}, "double"), ({int, float}, "double")):
        if kinds == types:
            return f"array<{kind}>"
    return None


@contextmanager
def _spark_errors() -> Iterator[None]:
    from py4j.protocol import Py4JError
    from pyspark.errors import PySparkException

    try:
        yield
    except PySparkException as exc:
        raise StoreError(f"Spark: {_first_line(exc)}") from None
    except (Py4JError, ConnectionError) as exc:
        raise StoreConnectionError(f"Spark connection problem: {_first_line(exc)}") from None


def _first_line(exc: BaseException) -> str:
    text = str(exc).strip()
    return text.splitlines()[0] if text else type(exc).__name__
