"""PostgreSQL + pgvector, inside a user's existing database, in its own schema."""

from __future__ import annotations

import re
import tempfile
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager, suppress
from pathlib import Path
from typing import Any

import numpy as np
import psycopg
from psycopg import sql as pgsql
from psycopg.conninfo import conninfo_to_dict, make_conninfo

from afr.errors import StoreConnectionError, StoreError
from afr.settings import StoreSettings
from afr.store.base import (
    SKB_TABLES,
    TYPE_INDEX_MIN_NODES,
    Store,
    check_identifier,
    check_table_name,
    duckdb_sql,
    redact_url,
)
from afr.store.dialect import POSTGRES

_ROWS_PER_FETCH = 10_000  # a named table's rows per round trip (afr load --nodes-table)
_COPY_CHUNK = 1 << 20
_RECONNECT_WAIT_S = 15.0
# target_session_attrs values with which a multi-host URL asks for a standby: the store's
# own connection (every write, the run log) then asks for the primary of the same hosts.
_STANDBY_ATTRS = ("standby", "prefer-standby", "read-only")
# HNSW builds: parallel workers asked for, and the most memory one build may take
# (the setting store.pg_index_memory_mb; the server's maintenance_work_mem default is 64 MB).
HNSW_BUILD_WORKERS = 2
HNSW_BUILD_MEMORY_MB = StoreSettings().pg_index_memory_mb


def hnsw_build_memory_mb(rows: int, dim: int, cap: int = HNSW_BUILD_MEMORY_MB) -> int:
    """maintenance_work_mem for an HNSW build over ``rows`` vectors of ``dim``: about what
    pgvector's in-memory graph takes (the vector and ~2 x m neighbour links per element,
    m = 16), at least the server default, at most ``cap`` (the setting
    store.pg_index_memory_mb)."""
    need = rows * (dim * 4 + 512) * 5 // 4 >> 20
    return max(64, min(cap, need))


class PostgresStore(Store):
    dialect = POSTGRES
    builds_vector_indexes = True

    def __init__(self, url: str, *, schema: str = "afr", read_only: bool = False,
                 create: bool = True, reads_only: bool = False,
                 index_memory_mb: int = HNSW_BUILD_MEMORY_MB,
                 replica_url: str | None = None) -> None:
        super().__init__()
        self.url = url
        # Where the reader connects: a read replica's URL, else the store's URL as given
        # (a multi-host URL with target_session_attrs=prefer-standby finds a standby).
        self.replica_url = replica_url
        self._replica_gone = False  # a standby reader was lost: readers use the primary
        #: Whether this session's server is a standby (read once at connect).
        self.on_standby = False
        self.index_memory_mb = index_memory_mb
        self.schema = self.own_schema = check_identifier(schema, "schema name")
        self.location = f"{redact_url(url)} (schema {schema})"
        self.read_only = read_only
        # Another store's reader: a read-only session at every (re)connect, running afr's
        # own statements as they are (read_only wraps and checks what users type).
        self.reads_only = reads_only
        self.create = create
        #: Whether this store object made its schema (a failed first load removes it).
        self.created_schema = False
        self._in_tx = False
        self._vector_indexes: set[str] = set()
        self._type_indexes: dict[str, set[int]] = {}  # per variant: type codes indexed
        self.reconnects = 0
        self._reader: PostgresStore | None = None
        self._reader_opening: threading.Thread | None = None  # set once: opened at most once
        self._reader_lock = threading.Lock()
        self._closed = False
        self._connect()

    def _connect(self) -> None:
        try:
            self.con = psycopg.connect(self._conninfo(), autocommit=True,
                                       connect_timeout=10)
        except psycopg.Error as exc:
            raise StoreError(f"cannot connect to PostgreSQL at {redact_url(self.url)}: "
                             f"{_first_line(exc)}") from None
        try:
            self._setup()
        except BaseException:
            # a store that could not be set up is never returned, so nobody else would
            # close its connection (a reader failing here left a backend behind)
            self.con.close()
            raise

    def _conninfo(self) -> str:
        """The URL a reader connects with as given; the store's own connection asks for
        the primary where the URL would take a standby."""
        return self.url if self.reads_only else primary_conninfo(self.url)

    def _lost(self) -> bool:
        return self.con.closed or self.con.broken

    def _reconnect(self) -> None:
        # The server restarted or our backend was terminated: a fresh session with the
        # same settings (search path, read-only default, vector type). Only ever between
        # transactions, so nothing half-done is replayed.
        with suppress(psycopg.Error):
            self.con.close()
        # A restarting server refuses connections for a moment: keep trying a while.
        deadline = time.monotonic() + _RECONNECT_WAIT_S
        delay = 0.1
        while True:
            try:
                self._connect()
                break
            except StoreError:
                if time.monotonic() + delay > deadline:
                    raise
                time.sleep(delay)
                delay = min(2.0, delay * 2)
        self.reconnects += 1

    def _setup(self) -> None:
        # Only a store opened to be created (afr init, afr load) may create the extension
        # or the schema; every other command finds them there or stops, changing nothing.
        extension = self._fetch_raw("setup/vector_extension_exists.sql")
        if not extension:
            if not self.create or self.read_only:
                raise StoreError(
                    "the PostgreSQL extension 'vector' (pgvector) is not installed in this "
                    "database; 'afr load' installs it (with the privilege to), or ask an "
                    "administrator to run: CREATE EXTENSION vector;")
            try:
                self._exec_raw("setup/create_vector_extension.sql")
            except psycopg.Error:
                raise StoreError(
                    "the PostgreSQL extension 'vector' (pgvector) is not installed in this "
                    "database; ask an administrator to run: CREATE EXTENSION vector;"
                ) from None
            extension = self._fetch_raw("setup/vector_extension_exists.sql")
        exists = self._fetch_raw("setup/schema_exists.sql", {"schema": self.schema})
        if not exists:
            if not self.create or self.read_only:
                raise StoreError(
                    f"no afr schema {self.schema!r} in {redact_url(self.url)}; load an SKB "
                    f"into it with 'afr --schema {self.schema} load DIR', or check --schema "
                    "and $AFR_SCHEMA")
            try:
                self._exec_raw("setup/create_schema.sql", schema=self.schema)
            except psycopg.Error as exc:
                raise StoreError(f"cannot create schema {self.schema!r}: "
                                 f"{_first_line(exc)}") from None
            self.created_schema = True
        # afr's tables are found in afr's schema only — never a user's public.nodes — and
        # pgvector's type and operators wherever the extension was installed.
        path = [self.schema]
        if extension[0][1] not in path:
            path.append(extension[0][1])
        self.con.execute(
            pgsql.SQL("SELECT set_config('search_path', {}, false)").format(
                pgsql.Literal(", ".join(_quote_ident(name) for name in path))
            )
        )
        if self.read_only or self.reads_only:
            self._exec_raw("setup/read_only_session.sql")
        if self.reads_only:
            self.on_standby = bool(self._fetch_raw("setup/in_recovery.sql")[0][0])
        from pgvector.psycopg import register_vector

        register_vector(self.con)
        self.con.adapters.register_dumper(_IdList, _IdListDumper)

    def _exec_raw(self, name: str, params: dict | None = None, **ctx: Any) -> None:
        for stmt in self.sql(name, **ctx):
            self.con.execute(stmt, params)

    def _fetch_raw(self, name: str, params: dict | None = None) -> list[tuple]:
        return self.con.execute(self.sql(name)[0], params).fetchall()

    # -- statements --------------------------------------------------------------------

    def _cursor(self, sql: str, params: dict[str, Any] | None) -> psycopg.Cursor:
        """Run one statement; a connection found dead outside a transaction is re-opened
        and the statement tried once more (the dead session cannot have run it)."""
        try:
            return self._cursor_once(sql, params)
        except psycopg.OperationalError as exc:
            # A standby that went away is left to the store (``reader_lost``): waiting
            # for it to come back would hold up every read meanwhile.
            if self._in_tx or not self._lost() or self.on_standby:
                raise _store_error(exc) from None
        except psycopg.Error as exc:
            raise _store_error(exc) from None
        self._reconnect()
        try:
            return self._cursor_once(sql, params)
        except psycopg.Error as exc:
            raise _store_error(exc) from None

    def _cursor_once(self, sql: str, params: dict[str, Any] | None) -> psycopg.Cursor:
        params = _bind_id_lists(params)
        if not self.read_only or self._in_tx:
            return self.con.execute(sql, params)
        # Read-only stores run what users type (`afr sql`). prepare=True forces the
        # extended protocol, which takes exactly one statement, so nothing like
        # "BEGIN READ WRITE; DELETE …; COMMIT" can be smuggled past the read-only
        # transaction it runs in; the rows are fetched client-side before it ends.
        _check_query_only(sql)
        with self.con.transaction():
            self._exec_raw("setup/read_only_transaction.sql")
            return self.con.execute(sql, params, prepare=True)

    def _execute(self, sql: str, params: dict[str, Any] | None) -> None:
        self._cursor(sql, params)

    def _fetch(self, sql: str, params: dict[str, Any] | None, max_rows: int | None = None
               ) -> tuple[list[str], list[tuple]]:
        # psycopg decodes JSON(B) columns itself, row by row as they are fetched.
        cur = self._cursor(sql, params)
        if not cur.description:
            return [], []
        try:
            rows = cur.fetchall() if max_rows is None else cur.fetchmany(max_rows)
            return [d.name for d in cur.description], rows
        except psycopg.Error as exc:
            raise _store_error(exc) from None

    @contextmanager
    def _transaction(self) -> Iterator[None]:
        with self.lock:  # other threads wait until the transaction is over
            if self._in_tx:
                yield
                return
            self.transactions += 1
            # A server restarted while we were idle shows only when used: probe (and
            # reconnect) before BEGIN rather than lose the transaction's work.
            self._cursor(self.sql("setup/ping.sql")[0], None)
            self._in_tx = True
            try:
                with self.con.transaction():
                    yield
            except psycopg.Error as exc:
                raise _store_error(exc) from None
            finally:
                self._in_tx = False

    def close(self) -> None:
        with self._reader_lock:
            self._closed = True
            opening, reader, self._reader = self._reader_opening, self._reader, None
        if opening is not None:
            opening.join()  # a reader it opens now sees the store closed, and closes itself
        if reader is not None:
            reader.close()
        self.runtime.close()
        self.con.close()

    def reader(self, *, wait: bool = True) -> PostgresStore | None:
        # A server runs two backends at once: on two cores, two independent searches of a
        # step take about the time of one. Opened in the background on first call (a
        # connection costs 15–30 ms, more than a question saves), so ``wait=False`` returns
        # None until it is ready. Read-only, so it can never write, and sharing this
        # store's facts. A server that refuses a second connection (max_connections) just
        # means no parallel reads.
        with self._reader_lock:
            if self._reader is None and self._reader_opening is None and not (
                    self._closed or self.reads_only):
                self._reader_opening = threading.Thread(
                    target=self._open_reader, name="afr-reader-connect", daemon=True)
                self._reader_opening.start()
            opening = self._reader_opening
        if wait and opening is not None:
            opening.join()
        return self._reader

    def _reader_url(self) -> str:
        """A replica while there is one to read from, else this store's own server."""
        if self._replica_gone:
            return primary_conninfo(self.url)
        return self.replica_url or self.url

    def reader_lost(self, reader: Store) -> None:
        # The reader's server went away (a standby stopped, or failed over): its reads
        # run again here, and the next reader opens on the primary. Counted once per read
        # a standby failed: a run says how many of its reads moved.
        with self._reader_lock:
            if reader is self._reader:
                self._reader, self._reader_opening = None, None
                if getattr(reader, "on_standby", False):
                    self._replica_gone = True
            if getattr(reader, "on_standby", False):
                self.standby_fallbacks += 1
        with suppress(psycopg.Error):
            reader.close()

    def _open_reader(self) -> None:
        try:
            reader = PostgresStore(self._reader_url(), schema=self.schema, create=False,
                                   reads_only=True)
        except (StoreError, psycopg.Error):
            return
        reader.runtime.facts = self.runtime.facts
        reader._vector_indexes = self._vector_indexes
        reader._type_indexes = self._type_indexes
        with self._reader_lock:
            if self._closed:
                reader.close()
            else:
                self._reader = reader

    # -- bulk ------------------------------------------------------------------------------

    def _ingest_staged(self, staging: Any, replace: bool) -> None:
        # DuckDB writes the staged tables as CSV (fast, parallel) and we stream the files
        # into COPY … FROM STDIN: no per-row Python work, bounded memory.
        self._exec_raw("load/settings.sql")
        if replace:
            for stmt in self.sql("load/clear.sql", tables=SKB_TABLES):
                self.execute(stmt)
        self._exec_raw("load/drop_indexes.sql")
        with tempfile.TemporaryDirectory(prefix="afr-load-") as tmp:
            for table in ("nodes", "node_aliases", "edges"):
                path = Path(tmp) / f"{table}.csv"
                for stmt in duckdb_sql("load/export.sql", table=table, path=str(path)):
                    staging.execute(stmt)
                self._copy_file(table, path)

    def _copy_file(self, table: str, path: Path) -> None:
        statement = self.sql("load/copy_in.sql", table=table)[0]
        try:
            with self.con.cursor().copy(statement) as copy, open(path, "rb") as fh:
                while chunk := fh.read(_COPY_CHUNK):
                    copy.write(chunk)
        except psycopg.Error as exc:
            raise _store_error(exc) from None

    def catalog_table_exists(self, name: str) -> bool:
        parts = name.lower().split(".")  # unquoted names, as PostgreSQL folds them
        return bool(self.run("load/catalog_table_exists.sql", {
            "schema": parts[-2], "table": parts[-1],
            "catalog": parts[0] if len(parts) == 3 else None}))

    def view_catalog_table(self, name: str, con: Any, view: str) -> None:
        """The table's rows as JSON lines in a temporary file, streamed from a server-side
        cursor, read into the staging connection as a table (then the file goes)."""
        query = self.sql("load/catalog_rows.sql", table=check_table_name(name))[0]
        with tempfile.TemporaryDirectory(prefix="afr-load-") as tmp:
            path = Path(tmp) / "rows.jsonl"
            try:
                with self.con.cursor(name="afr_catalog_rows") as cur, \
                        open(path, "w", encoding="utf-8") as fh:
                    cur.itersize = _ROWS_PER_FETCH
                    cur.execute(query)
                    for (line,) in cur:
                        fh.write(line)
                        fh.write("\n")
            except psycopg.Error as exc:
                raise _store_error(exc) from None
            for stmt in duckdb_sql("load/catalog_json_table.sql", view=check_identifier(view)):
                con.execute(stmt, {"path": str(path)})

    def _write_vectors(self, variant: str, ids: np.ndarray, vectors: np.ndarray) -> None:
        typed = self._has_type_code(variant)
        statement = self.sql("embed/insert.sql", variant=variant, typed=typed)[0]
        node_ids = ids.tolist()
        rows: Any = zip(node_ids, vectors.astype(np.float32), strict=True)
        if typed:  # each row with its node's type code (the per-type indexes' key)
            codes = self.type_codes()
            node_types = dict(self.run("embed/node_types.sql", {"ids": node_ids}))
            rows = ((node_id, codes.get(node_types.get(node_id)), vec)
                    for node_id, vec in rows)
        try:
            with self.con.cursor().copy(statement) as copy:
                copy.set_types(["int8", "int4", "vector"] if typed else ["int8", "vector"])
                for row in rows:
                    copy.write_row(row)
        except psycopg.Error as exc:
            raise _store_error(exc) from None

    def _has_type_code(self, variant: str) -> bool:
        """Whether the variant's table keeps type codes (tables made before them do not)."""
        return self.fact(("type_code", variant), lambda: bool(self.run(
            "embed/has_type_code.sql", {"table": f"emb_{check_identifier(variant)}"})))

    def _write_rows(self, table: str, columns: dict[str, np.ndarray]) -> None:
        statement = self.sql("load/copy_rows.sql", table=table, columns=list(columns))[0]
        types = [_pg_copy_type(np.asarray(c).dtype) for c in columns.values()]
        try:
            with self.con.cursor().copy(statement) as copy:
                copy.set_types(types)
                for row in zip(*(np.asarray(c).tolist() for c in columns.values()),
                               strict=True):
                    copy.write_row(row)
        except psycopg.Error as exc:
            raise _store_error(exc) from None

    def drop_created_schema(self) -> None:
        """Remove the schema this store object created, with everything in it (a first
        load that failed leaves no empty tables behind)."""
        if not self.created_schema:
            return
        try:
            self._exec_raw("setup/drop_schema.sql", schema=self.schema)
        except psycopg.Error as exc:
            raise _store_error(exc) from None
        self.created_schema = False

    def build_vector_index(self, variant: str, dim: int) -> list[str]:
        table = f"emb_{check_identifier(variant, 'embedding variant')}"
        missing = self._missing_indexes(variant)
        if not missing:
            return []
        owned = self.run("embed/table_owned.sql", {"table": table})
        if not (owned and owned[0][0]):
            # CREATE INDEX (even IF NOT EXISTS) needs the table's owner: say what is
            # missing rather than fail after the vectors are in, or skip it unsaid.
            names = ", ".join(name for name, _, _, _ in missing)
            return [f"{table} lacks its approximate indexes {names} (searches there scan "
                    "exactly, slower on large SKBs): only the table's owner may build them, "
                    "by running afr embed on this store (it embeds nothing new and builds "
                    "them)"]
        for _, template, rows, ctx in missing:
            self._build_hnsw(template, rows, dim, variant=variant, **ctx)
        self._vector_indexes.add(variant)
        self._type_indexes.pop(variant, None)
        return []

    def _missing_indexes(self, variant: str) -> list[tuple[str, str, int, dict[str, Any]]]:
        """(index name, template, rows, template values) of each HNSW index the variant
        should have and lacks: one over the table, and one per node type of at least
        ``TYPE_INDEX_MIN_NODES`` nodes (which searches within that type ask for exactly
        k; a small type is searched exactly: a scan of its rows costs little)."""
        table = f"emb_{variant}"
        counts = self.node_type_counts()
        missing = []
        if not self.has_vector_index(variant):
            missing.append((f"{table}_hnsw", "embed/hnsw.sql", sum(counts.values()), {}))
        if self._has_type_code(variant):
            have = {name for (name,) in self.run("embed/type_indexes.sql",
                                                 {"table": table, "prefix": f"{table}_hnsw_t%"})}
            for node_type, code in self.type_codes().items():
                name = f"{table}_hnsw_t{code}"
                if counts.get(node_type, 0) >= TYPE_INDEX_MIN_NODES and name not in have:
                    missing.append((name, "embed/hnsw_type.sql", counts[node_type],
                                    {"code": code}))
        return missing

    def vector_indexes(self) -> list[tuple[str, str, int]]:
        return [(r.name, r.table_name, int(r.bytes)) for r in self.run("meta/vector_indexes.sql")]

    def _build_hnsw(self, template: str, rows: int, dim: int, **ctx: Any) -> None:
        """One HNSW index, in a transaction of its own with memory for its graph. A parallel
        build keeps that memory in shared memory, which a container's small /dev/shm may
        refuse: the build is then repeated by this backend alone."""
        memory = f"{hnsw_build_memory_mb(rows, dim, self.index_memory_mb)}MB"
        for workers in (HNSW_BUILD_WORKERS, 0):
            try:
                with self.transaction():
                    self._exec_raw("embed/index_settings.sql",
                                   {"memory": memory, "workers": str(workers)})
                    for stmt in self.sql(template, **ctx):
                        self.execute(stmt)
                return
            except StoreError as exc:
                if workers == 0 or "shared memory" not in str(exc):
                    raise

    def replace_vectors(self, variant: str, shadow: str) -> None:
        super().replace_vectors(variant, shadow)
        for name in (variant, shadow):
            self._vector_indexes.discard(name)
            self._type_indexes.pop(name, None)

    def drop_vectors(self, variant: str) -> None:
        super().drop_vectors(variant)
        self._vector_indexes.discard(variant)
        self._type_indexes.pop(variant, None)

    def type_vector_index(self, variant: str, node_type: str) -> int | None:
        if variant not in self._type_indexes:
            table = f"emb_{check_identifier(variant, 'embedding variant')}"
            names = self.run("embed/type_indexes.sql",
                             {"table": table, "prefix": f"{table}_hnsw_t%"})
            self._type_indexes[variant] = {
                int(m.group(1)) for (name,) in names
                if (m := re.fullmatch(rf"{table}_hnsw_t(\d+)", name))}
        code = self.type_codes().get(node_type)
        return code if code in self._type_indexes[variant] else None

    def server_memory(self) -> tuple[int, int]:
        row = self.run("meta/server_memory.sql")[0]
        return int(row.shared_buffers), int(row.vector_indexes)

    def has_vector_index(self, variant: str) -> bool:
        # Remembered once seen: an index only goes away with its table (a rebuild), and a
        # query planned for the index still answers (by a scan) without it.
        if variant not in self._vector_indexes:
            check_identifier(variant, "embedding variant")
            if self.run("meta/vector_index_exists.sql", {"index": f"emb_{variant}_hnsw"}):
                self._vector_indexes.add(variant)
        return variant in self._vector_indexes


def primary_conninfo(url: str) -> str:
    """``url``, asking for the primary where it asks for a standby (a libpq multi-host URL
    with target_session_attrs=prefer-standby, standby or read-only); else unchanged."""
    try:
        attrs = conninfo_to_dict(url).get("target_session_attrs")
    except psycopg.ProgrammingError as exc:
        raise StoreError(f"invalid PostgreSQL URL {redact_url(url)}: "
                         f"{_first_line(exc)}") from None
    if attrs not in _STANDBY_ATTRS:
        return url
    return make_conninfo(url, target_session_attrs="primary")


# numpy dtype kind → the binary COPY type of a column written by write_rows
_PG_COPY_TYPES = {"i": "int8", "u": "int8", "f": "float8", "b": "bool"}


def _pg_copy_type(dtype: np.dtype) -> str:
    # binary COPY wants the column's own type: float32 arrays fill REAL columns
    if dtype.kind == "f" and dtype.itemsize == 4:
        return "float4"
    return _PG_COPY_TYPES.get(dtype.kind, "text")

_LEADING_NOISE = re.compile(r"^(\s+|--[^\n]*(\n|$)|/\*.*?\*/|\()+", re.DOTALL)
_QUERY_WORDS = {"select", "with", "values", "table", "explain", "show"}


def _check_query_only(sql: str) -> None:
    # A read-only transaction stops writes to the database, but not a superuser's
    # COPY … TO '/server/file' (a read, to PostgreSQL): read-only stores run queries only.
    rest = _LEADING_NOISE.sub("", sql)
    word = re.match(r"[A-Za-z]*", rest).group(0).lower()  # type: ignore[union-attr]
    if word not in _QUERY_WORDS:
        raise StoreError(f"a read-only store runs queries only (SELECT, WITH, VALUES, TABLE, "
                         f"EXPLAIN, SHOW), not {word.upper() or repr(rest[:20])}")


# Lists of ids (grounded answers, candidates) are bound as one bigint[] text literal:
# psycopg's generic list dumper checks every element against a regular expression, 1.2 ms
# for 3,000 ids where joining them takes 0.3 ms. Shorter lists are not worth the check.
_ID_LIST_MIN = 64


class _IdList(list):
    """A list of Python ints to bind as bigint[]."""


class _IdListDumper(psycopg.adapt.Dumper):
    oid = psycopg.postgres.types["int8"].array_oid

    def dump(self, obj: list[int]) -> bytes:
        return ("{" + ",".join(map(str, obj)) + "}").encode()


def _bind_id_lists(params: dict[str, Any] | None) -> dict[str, Any] | None:
    """``params`` with each long list of ints marked for the bigint[] dumper."""
    if not params:
        return params
    out = params
    for name, value in params.items():
        if type(value) is list and len(value) >= _ID_LIST_MIN \
                and all(type(x) is int for x in value):
            if out is params:
                out = dict(params)
            out[name] = _IdList(value)
    return out


def _quote_ident(name: str) -> str:
    return '"' + name.replace('"', '""') + '"'


def _first_line(exc: BaseException) -> str:
    text = str(exc).strip()
    return text.splitlines()[0] if text else type(exc).__name__


def _store_error(exc: psycopg.Error) -> StoreError:
    if isinstance(exc, psycopg.errors.DiskFull):
        return StoreError(f"PostgreSQL: the disk is full ({_first_line(exc)})")
    if isinstance(exc, psycopg.errors.InsufficientPrivilege):
        return StoreError(f"PostgreSQL: permission denied ({_first_line(exc)})")
    if isinstance(exc, psycopg.OperationalError):
        return StoreConnectionError(f"PostgreSQL connection problem: {_first_line(exc)}")
    return StoreError(f"PostgreSQL: {_first_line(exc)}")

