"""Independent reads of one step, run at once on a store's two connections.

A step often needs several searches that do not depend on each other: a constant's vector
and BM25 rankings, the question's vector list beside the grounded answers' similarities.
On PostgreSQL each runs in a server backend, so two connections (the store's own and its
``reader()``) answer two of them in about the time of one. ``run_reads`` hands the tasks
to both as they come free and returns the results in task order, exactly as running them
one after another would; on a store without a reader (DuckDB, or a server that refused
a second connection) it does just that.
"""

from __future__ import annotations

import threading
from collections import deque
from collections.abc import Callable, Sequence
from typing import TypeVar

from afr.errors import StoreConnectionError
from afr.store.base import Store
from afr.vectors.exact import exact_search, use_exact_search
from afr.vectors.memory import memory_vectors

T = TypeVar("T")
Read = Callable[[Store], T]  # a read, given the connection to run it on


def reader_for(store: Store) -> Store | None:
    """The store's second connection, set to search as the store does (exact mode), or
    None when reads should stay on the store itself: it has no reader (or not yet), or it
    searches in-memory matrices (numpy in this process, not a server's backends)."""
    if memory_vectors(store) is not None:
        return None
    reader = store.reader(wait=False)  # reads wait for no connection: in order until then
    if reader is not None:
        use_exact_search(reader, exact_search(store))
    return reader


def run_reads(store: Store, reads: Sequence[Read[T]]) -> list[T]:
    """``[read(store) for read in reads]``, with the reads shared out between the store and
    its reader. A read that fails on the reader runs again on the store, so errors (and
    results) are those of running them in order here."""
    reader = reader_for(store) if len(reads) > 1 else None
    if reader is None:
        return [read(store) for read in reads]
    waiting = deque(enumerate(reads))
    results: dict[int, T] = {}
    failed: list[int] = []
    taken: list[threading.Event] = []
    lock = threading.Lock()

    def pull(conn: Store, on_reader: bool) -> None:
        while True:
            with lock:
                if not waiting:
                    return
                i, read = waiting.popleft()
                done = threading.Event()
                taken.append(done)
            try:
                results[i] = read(conn)
            except BaseException as exc:
                if not on_reader:
                    raise
                if isinstance(exc, StoreConnectionError):  # a standby that went away
                    store.reader_lost(conn)
                failed.append(i)  # the store runs it again, below
            finally:
                done.set()

    # The reader's thread may be busy with another question's reads (afr eval
    # --concurrency): then this thread takes them all, and waits for none of its own.
    store.runtime.worker().submit(pull, reader, True)
    pull(store, False)
    for done in list(taken):
        done.wait()
    for i in sorted(failed):
        results[i] = reads[i](store)
    return [results[i] for i in range(len(reads))]

