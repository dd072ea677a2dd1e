"""What this process keeps beside one store's connection, in one object the store owns.

Facts read once (schema, embedding models, counts), the query embeddings waiting to be
saved, whether vector searches must be exact, the in-memory search matrices, and the
thread that runs reads on the store's second connection. Made with the store, dropped
with it: nothing of it lives in a module-level registry.
"""

from __future__ import annotations

import threading
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import Any


@dataclass
class StoreRuntime:
    facts: dict[Any, Any] = field(default_factory=dict)
    # query embeddings made but not yet in the store's cache: (model id, text hash) →
    # (text, vector); an ask writes nothing before its answers are found
    pending_vectors: dict[tuple[str, str], tuple[str, Any]] = field(default_factory=dict)
    exact_search: bool = False  # never an approximate index (``afr.vectors.exact``)
    # ``afr.vectors.memory.SearchMatrices`` when the store searches in-memory matrices,
    # None when told to search with SQL, absent (``matrices_set`` False) until decided
    matrices: Any = None
    matrices_set: bool = False
    # ``afr.lexical.memory.MemoryPostings`` mapped for the index version beside it (None:
    # no current postings file; BM25 runs in SQL)
    postings: Any = None
    postings_version: str | None = None
    reader_worker: ThreadPoolExecutor | None = None  # runs reads on ``Store.reader()``
    lock: threading.Lock = field(default_factory=threading.Lock, repr=False)

    def worker(self) -> ThreadPoolExecutor:
        """The one thread that runs reads on the reader (it takes one at a time)."""
        with self.lock:
            if self.reader_worker is None:
                self.reader_worker = ThreadPoolExecutor(1, thread_name_prefix="afr-reader")
            return self.reader_worker

    def close(self) -> None:
        with self.lock:
            worker, self.reader_worker = self.reader_worker, None
            self.pending_vectors.clear()
        if worker is not None:
            worker.shutdown(wait=False)
