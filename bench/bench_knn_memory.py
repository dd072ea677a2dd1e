"""Peak memory and time of the one-machine LSH kNN of a store's vectors, as ``afr index
--similarity`` runs it with ``[sage] knn = "lsh"`` (docs/stores.md, "Memory of LSH on one
machine").

    python bench/bench_knn_memory.py STORE.duckdb [--variant doc] [--k 50] [--tables 8]

Loads the store's search matrix of ``--variant`` into memory first (its size is the
"before" figure), then runs ``afr.vectors.knn.lsh_neighbours`` once over every row and
prints the rows, neighbour pairs, seconds, the process's peak resident memory
(``ru_maxrss``) and a hash of the neighbour lists, so that two versions of the code can
be compared on the same store: run it once per version (``PYTHONPATH=WORKTREE``), on a
quiet machine, one at a time.
"""

from __future__ import annotations

import argparse
import hashlib
import resource
import time

import numpy as np

from afr.store import open_store
from afr.vectors.knn import LshParams, lsh_neighbours
from afr.vectors.memory import SearchMatrices


def peak_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024  # KB on Linux


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("store")
    parser.add_argument("--variant", default="doc")
    parser.add_argument("--k", type=int, default=50)
    parser.add_argument("--tables", type=int, default=8)
    opts = parser.parse_args()
    store = open_store(opts.store, read_only=True)
    try:
        model = store.embedding_model(opts.variant)
        if model is None:
            raise SystemExit(f"{opts.store}: no {opts.variant} vectors; run 'afr embed'")
        matrix = SearchMatrices(store, build=False).get(opts.variant, model[1])
        if matrix is None:
            raise SystemExit(f"{opts.store}: no search matrix of {opts.variant}")
        vectors = np.array(matrix.vectors)
    finally:
        store.close()
    before = peak_mb()
    started = time.perf_counter()
    found = lsh_neighbours(vectors, opts.k, LshParams(tables=opts.tables))
    seconds = time.perf_counter() - started
    digest = hashlib.sha1(found.src.tobytes() + found.dst.tobytes()).hexdigest()[:12]
    print(f"rows {len(vectors):,}, k {opts.k}, {opts.tables} tables: "
          f"{len(found.src):,} neighbour pairs in {seconds:.1f} s; peak {peak_mb():,.0f} MB "
          f"({before:,.0f} MB before the kNN); lists {digest}")


if __name__ == "__main__":
    main()
