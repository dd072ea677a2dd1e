"""The in-memory search matrix answers exactly what the SQL scan answers (DuckDB)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from skbutil import write_skb

from afr.embed.hashing import HashingEmbedder
from afr.load import load_skb_dir
from afr.store import DuckDBStore
from afr.vectors import embed_store, memory, search
from afr.vectors.memory import SearchMatrix, memory_vectors, use_memory_vectors

TYPES = ["a", "b", "c"]


@pytest.fixture
def embedded(duck_store: DuckDBStore, tmp_path: Path) -> DuckDBStore:
    rng = np.random.default_rng(3)
    vocab = [f"w{i}" for i in range(40)]
    nodes = [{"id": i, "type": TYPES[i % 7 % 3], "name": f"node {i}",
              "text": " ".join(rng.choice(vocab, size=5))} for i in range(300)]
    schema = {"name": "mv", "directed": False, "node_types": {t: {} for t in TYPES},
              "edge_types": {"r": {"source": "a", "target": "b"}}}
    load_skb_dir(duck_store, write_skb(tmp_path / "skb", schema, nodes, [(0, "r", 1)]),
                 progress=False)
    embed_store(duck_store, HashingEmbedder(32), progress=False)
    return duck_store


def sql_search(store: DuckDBStore, *args, **kwargs) -> list[tuple[int, float]]:
    saved = memory_vectors(store)
    memory.stop_memory_vectors(store)
    try:
        return search(store, *args, **kwargs)
    finally:
        if saved is not None:
            memory._REGISTRY[store] = saved


def test_matrix_equals_sql_scan(embedded: DuckDBStore) -> None:
    use_memory_vectors(embedded)
    rng = np.random.default_rng(11)
    embedder = HashingEmbedder(32)
    checked = 0
    for trial in range(60):
        vec = embedder.embed([" ".join(f"w{i}" for i in rng.integers(0, 40, size=3))])[0]
        variant = ("doc", "doc_rel")[trial % 2]
        k = int(rng.integers(1, 40))
        types = list(rng.choice(TYPES, size=int(rng.integers(1, 3)), replace=False)) \
            if trial % 3 else None
        ids = [int(i) for i in rng.integers(0, 320, size=int(rng.integers(0, 60)))] \
            if trial % 4 == 0 else None
        exclude = [int(i) for i in rng.integers(0, 300, size=10)] if trial % 5 == 0 else None
        want = sql_search(embedded, variant, vec, k, types=types, ids=ids, exclude=exclude)
        got = search(embedded, variant, vec, k, types=types, ids=ids, exclude=exclude)
        assert [i for i, _ in got] == [i for i, _ in want], (trial, types, ids, exclude)
        assert np.allclose([s for _, s in got], [s for _, s in want], atol=1e-5)
        checked += 1
    matrices = memory_vectors(embedded)
    assert checked == 60 and matrices is not None
    assert matrices._matrices  # the matrices were really used


def test_ties_break_by_node_id() -> None:
    vectors = np.array([[1, 0], [0, 1], [1, 0], [1, 0]], dtype=np.float32)
    matrix = SearchMatrix(np.array([4, 5, 7, 9]), vectors, {"t": np.arange(4)})
    assert [i for i, _ in matrix.search(np.array([2.0, 0.0]), 2)] == [4, 7]
    assert [i for i, _ in matrix.search(np.array([1.0, 0.0]), 9, ids=[9, 5, 123])] == [9, 5]


def test_new_vectors_invalidate_the_matrix(embedded: DuckDBStore) -> None:
    use_memory_vectors(embedded)
    vec = HashingEmbedder(32).embed(["w1 w2"])[0]
    search(embedded, "doc", vec, 5)
    matrices = memory_vectors(embedded)
    assert matrices is not None and matrices._matrices
    embed_store(embedded, HashingEmbedder(32), rebuild=True, variants=["doc"], progress=False)
    assert not matrices._matrices


def test_budget_keeps_large_stores_on_sql(embedded: DuckDBStore) -> None:
    use_memory_vectors(embedded, budget_mb=0.001)
    vec = HashingEmbedder(32).embed(["w1"])[0]
    assert search(embedded, "doc", vec, 5) == sql_search(embedded, "doc", vec, 5)
    assert memory_vectors(embedded)._matrices == {"doc": None}
