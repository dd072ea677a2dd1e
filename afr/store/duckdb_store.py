"""The embedded default: one DuckDB file, no server."""

from __future__ import annotations

import os
import re
from collections.abc import Iterator
from contextlib import contextmanager, suppress
from pathlib import Path
from typing import TYPE_CHECKING, Any

import duckdb

from afr.errors import StoreError, StoreLockedError
from afr.store.base import (
    SKB_TABLES,
    Store,
    check_identifier,
    check_table_name,
    decode_json_columns,
)
from afr.store.dialect import DUCKDB

if TYPE_CHECKING:  # imported where arrays are made: `afr sql` needs none
    import numpy as np


# DuckDB's buffer pool, as a share of the machine's memory (the setting
# store.duckdb_memory_mb, $AFR_DUCKDB_MEMORY_MB, sets it in megabytes): DuckDB's own default is 80%; its guide suggests 50-60% where work outside
# the pool (afr's matrices, embedding batches) needs room too.
DUCKDB_MEMORY_SHARE = 0.5
_DUCKDB_MEMORY_MIN_MB = 256


def duckdb_memory_mb(given: int | None = None) -> int:
    """The memory limit a DuckDB store sets, in megabytes: ``given``, else half the
    machine's memory."""
    if given is not None:
        return max(_DUCKDB_MEMORY_MIN_MB, given)
    try:
        total = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
    except (AttributeError, ValueError, OSError):  # no sysconf (Windows): a fixed guess
        total = 8 << 30
    return max(_DUCKDB_MEMORY_MIN_MB, int(total * DUCKDB_MEMORY_SHARE) >> 20)


# Every DuckDB database file starts with a checksum and then this magic (storage format
# header): a file without it is data DuckDB would open as an empty in-memory database.
_DUCKDB_MAGIC = b"DUCK"
_MAGIC_OFFSET = 8
ACCEPTED_FILES = "a DuckDB database file (existing, or a new path) or a postgresql:// URL"


def check_store_file(path: Path) -> None:
    """Refuse what DuckDB would open as an in-memory database — ``:memory:``, or an
    existing file that is not a DuckDB database (a .csv, a .parquet: DuckDB reads it as
    data and keeps nothing) — so no command reports work kept where it was not."""
    if str(path) == ":memory:":
        raise StoreError(f"':memory:' keeps nothing once afr exits: give {ACCEPTED_FILES}")
    if path.is_dir():
        raise StoreError(f"{path} is a directory: give {ACCEPTED_FILES}")
    if not path.exists():
        return
    try:
        with open(path, "rb") as fh:
            head = fh.read(_MAGIC_OFFSET + len(_DUCKDB_MAGIC))
    except OSError as exc:
        raise StoreError(f"cannot read {path}: {exc.strerror}") from None
    if head[_MAGIC_OFFSET:] != _DUCKDB_MAGIC:
        raise StoreError(f"{path} is not a DuckDB database file ({_kind(path, head)}): "
                         f"give {ACCEPTED_FILES}")


def _kind(path: Path, head: bytes) -> str:
    if not head:
        return "it is empty"
    if head.startswith(b"SQLite format"):
        return "it is an SQLite database"
    if head.startswith(b"PAR1"):
        return "it is a Parquet file"
    suffix = path.suffix.lower().lstrip(".")
    return f"it looks like a {suffix} file" if suffix else "another kind of file"


class DuckDBStore(Store):
    dialect = DUCKDB
    own_schema = "main"
    maps_postings = True

    def __init__(self, path: str | Path, *, read_only: bool = False,
                 create: bool = True, memory_mb: int | None = None) -> None:
        super().__init__()
        self.path = Path(path).expanduser()
        self.location = str(self.path)
        self.read_only = read_only
        check_store_file(self.path)
        if (read_only or not create) and not self.path.exists():
            raise StoreError(f"no store at {self.path}; create one with 'afr load DIR' "
                             "(or 'afr demo')")
        if not read_only:
            try:
                self.path.parent.mkdir(parents=True, exist_ok=True)
            except OSError as exc:
                raise StoreError(f"cannot create {self.path.parent}: {exc.strerror}") from None
        try:
            # a connection setting, not a statement: no template to render on every open
            self.con = duckdb.connect(str(self.path), read_only=read_only,
                                      config={"memory_limit":
                                              f"{duckdb_memory_mb(memory_mb)}MiB"})
        except duckdb.IOException as exc:
            msg = str(exc)
            if "lock" in msg.lower():
                raise locked_error(self.path, msg, read_only=read_only) from None
            raise StoreError(f"cannot open {self.path}: {msg.splitlines()[0]}") from None
        except duckdb.Error as exc:
            raise StoreError(f"cannot open {self.path}: {str(exc).splitlines()[0]}") from None
        self._in_tx = False
        self.con.execute("SET enable_progress_bar = false")
        if read_only:
            # A read-only store runs what users type (`afr sql`): the file is read-only
            # already, but COPY … TO, ATTACH or extension installs would still write
            # elsewhere. Switch file access off (for good: DuckDB will not re-enable it).
            for stmt in self.sql("meta/lock_down.sql"):
                self.con.execute(stmt)

    def table_exists(self, table: str) -> bool:
        if self._in_tx:  # an error would abort the transaction: ask the catalog
            return super().table_exists(table)
        return self._probe_table(check_identifier(table, "table"))

    def _probe_table(self, name: str) -> bool:
        try:
            self.run("meta/table_probe.sql", {"table": name})
        except StoreError as exc:
            if "Catalog Error" in str(exc):
                return False
            raise
        return True

    def catalog_table_exists(self, name: str) -> bool:
        return self._probe_table(name)

    def view_catalog_table(self, name: str, con: Any, view: str) -> None:
        # staging is this store's own connection (staging_connection): a view reads the
        # table where it is, with no copy until the staging SQL's own
        self.run("load/catalog_view.sql", view=check_identifier(view, "view"),
                 table=check_table_name(name))

    def sidecar_dir(self) -> Path | None:
        if str(self.path) == ":memory:":
            return None
        return self.path.with_name(self.path.name + ".vectors")

    # -- statements --------------------------------------------------------------------

    def _execute(self, sql: str, params: dict[str, Any] | None) -> None:
        try:
            self.con.execute(sql, params or None)
        except duckdb.Error as exc:
            raise _store_error(exc) from None

    def _fetch(self, sql: str, params: dict[str, Any] | None, max_rows: int | None = None
               ) -> tuple[list[str], list[tuple]]:
        try:
            cur = self.con.execute(sql, params or None)
            description = cur.description or []
            rows = cur.fetchall() if max_rows is None else cur.fetchmany(max_rows)
        except duckdb.Error as exc:
            raise _store_error(exc) from None
        # DuckDB hands JSON back as text (psycopg decodes it): decode it here.
        json_columns = [i for i, d in enumerate(description) if str(d[1]) == "JSON"]
        return [d[0] for d in description], decode_json_columns(json_columns, rows)

    def query_numpy(self, sql: str, params: dict[str, Any] | None = None
                    ) -> dict[str, np.ndarray]:
        """Columns as numpy arrays: bulk reads (a vector matrix) without Python objects."""
        with self.lock:
            self.statements += 1
            try:
                return self.con.execute(sql, params or None).fetchnumpy()
            except duckdb.Error as exc:
                raise _store_error(exc) from None

    @contextmanager
    def _transaction(self) -> Iterator[None]:
        with self.lock:  # other threads wait until the transaction is over
            if self._in_tx:  # nested: the outer transaction decides
                yield
                return
            self.transactions += 1
            self._execute("BEGIN TRANSACTION", None)
            self._in_tx = True
            try:
                yield
            except BaseException:
                with suppress(duckdb.Error):  # the error that got us here is the news
                    self.con.execute("ROLLBACK")
                raise
            else:
                # COMMIT is where a full disk shows (the WAL is written): a StoreError.
                self._execute("COMMIT", None)
            finally:
                self._in_tx = False

    def close(self) -> None:
        self.runtime.close()
        self.con.close()

    # -- bulk ------------------------------------------------------------------------------

    def staging_connection(self) -> duckdb.DuckDBPyConnection:
        return self.con

    def release_staging(self, staging: Any) -> None:
        # Staging tables are temp tables of the store's own connection: free them, or a
        # long-lived process keeps a copy of the last SKB it loaded in memory.
        for (table,) in self.run("load/staging_tables.sql"):
            self.run("load/drop_staging.sql", table=check_identifier(table, "staging table"))

    def _ingest_staged(self, staging: Any, replace: bool) -> None:
        # Staging lives in temp tables of this very connection (see afr.load.stage), so
        # the copy is a set of INSERT … SELECT inside the caller's transaction.
        if staging is not self.con:
            raise StoreError("internal: DuckDB ingest expects staging on the store connection")
        if replace:
            for stmt in self.sql("load/clear.sql", tables=SKB_TABLES):
                self.execute(stmt)
        for stmt in self.sql("load/ingest.sql"):
            self.execute(stmt)

    def _write_vectors(self, variant: str, ids: np.ndarray, vectors: np.ndarray) -> None:
        # DuckDB scans dicts of 1-d numpy arrays; a matrix goes in as an object column
        # holding one float32 row (a view, no copy) per node, which DuckDB reads as a list
        # (faster than one row per (node, position) folded back by a sorting aggregate).
        import numpy as np

        dim = vectors.shape[1]
        matrix = np.ascontiguousarray(vectors, dtype=np.float32)
        rows = np.empty(len(matrix), dtype=object)
        rows[:] = list(matrix)
        batch = {"node_id": np.asarray(ids, dtype=np.int64), "vec": rows}
        try:
            self.con.register("afr_vec_batch", batch)
            for stmt in self.sql("embed/insert.sql", variant=variant, dim=dim):
                self.execute(stmt)
        finally:
            self.con.unregister("afr_vec_batch")

    def _write_rows(self, table: str, columns: dict[str, np.ndarray]) -> None:
        try:
            self.con.register("afr_rows_batch", columns)
            for stmt in self.sql("load/insert_rows.sql", table=table, columns=list(columns)):
                self.execute(stmt)
        finally:
            self.con.unregister("afr_rows_batch")

    # build_vector_index: none. DuckDB's HNSW lives in an extension that must be
    # downloaded; we scan exactly (or search in-memory matrices, afr.vectors.memory),
    # which is fast enough for the sizes an embedded store serves (see bench/).


_LOCK_HOLDER = re.compile(r"held in (.*?) \(PID (\d+)\)")


def locked_error(path: Path, message: str, *, read_only: bool) -> StoreLockedError:
    """DuckDB's lock conflict, said for people: who holds the file and what to do. DuckDB
    lets one process write a file and no one else open it meanwhile, not even to read;
    several processes may read it at once (read-only), and then none may write."""
    held = _LOCK_HOLDER.search(message)
    pid = int(held.group(2)) if held else None
    who = f"process {pid}" + (f" ({_command_of(pid) or held.group(1)})" if held else "") \
        if pid is not None else "another process"
    # DuckDB says so when the holders only read (only then would read-only work).
    readers_only = "read-only mode" in message
    if readers_only and not read_only:
        return StoreLockedError(
            f"the store {path} is in use by another process: {who} reads it, and DuckDB "
            "lets no process write it meanwhile; run this when that one has finished "
            "(commands that only read, such as afr info, afr sql or afr runs, work beside "
            "it)", pid=pid, readers_only=True)
    return StoreLockedError(
        f"the store {path} is in use by another process: {who} writes it, and DuckDB lets "
        "no other process open it meanwhile, not even to read; wait for it to finish, or "
        "work on a copy of the file, or keep the SKB in PostgreSQL, where many processes "
        "read and write at once", pid=pid)


def _command_of(pid: int) -> str | None:
    """The command line of process ``pid`` (Linux), shortened; None when unknown."""
    try:
        raw = Path(f"/proc/{pid}/cmdline").read_bytes()
    except OSError:
        return None
    words = [w for w in raw.decode(errors="replace").split("\0") if w]
    if len(words) > 1 and Path(words[0]).name.startswith("python") \
            and Path(words[1]).name == "afr":
        words = words[1:]  # the afr script as python runs it
    text = " ".join([Path(words[0]).name, *words[1:]]) if words else ""
    return (text[:77] + "…") if len(text) > 78 else text or None


def _store_error(exc: duckdb.Error) -> StoreError:
    msg = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
    text = str(exc)
    if "No space left" in text or "File too large" in text or "Disk quota" in text:
        return StoreError(f"the disk is full: DuckDB could not write to the store ({msg})")
    if "Permission denied" in text or "Read-only file system" in text:
        return StoreError(f"no permission to write the store: {msg}")
    return StoreError(f"DuckDB: {msg}")
