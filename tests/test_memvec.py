"""The in-memory search matrix answers exactly what the SQL scan answers (DuckDB)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from skbutil import write_skb

from afr.embed.hashing import HashingEmbedder
from afr.load import load_skb_dir
from afr.store import DuckDBStore, sidecar
from afr.vectors import embed_store, memory
from afr.vectors.memory import SearchMatrix, memory_vectors, use_memory_vectors
from afr.vectors.search import search

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


def search_with_sql(store: DuckDBStore) -> None:
    """Let ``store`` search its vectors with SQL (no matrices), as a store told so does."""
    store.runtime.matrices, store.runtime.matrices_set = None, True


def sql_search(store: DuckDBStore, *args, **kwargs) -> list[tuple[int, float]]:
    saved = memory_vectors(store)
    search_with_sql(store)
    try:
        return search(store, *args, **kwargs)
    finally:
        if saved is not None:
            store.runtime.matrices = saved


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


def test_matrix_is_read_in_slices_into_the_same_array(embedded: DuckDBStore,
                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    """Building a matrix reads its vectors a slice of one type at a time (no Python object
    per vector for the whole store): slices of 7 rows give the matrix of one read, which
    a matrix within one slice is read by."""
    reads = []
    real = embedded.query_numpy

    def query_numpy(sql, params=None):
        reads.append(params)
        return real(sql, params)

    monkeypatch.setattr(embedded, "query_numpy", query_numpy)
    whole = SearchMatrix.load(embedded, "doc")
    # a matrix within one slice: the rows, then every vector in one read (not one a type)
    assert len(reads) == 2 and reads == [None, None]
    monkeypatch.setattr(memory, "LOAD_SLICE_ROWS", 7)
    reads.clear()
    sliced = SearchMatrix.load(embedded, "doc")
    (stmt,) = embedded.sql("embed/all_vectors.sql", variant="doc")
    rows = embedded.query(stmt)  # one read of everything, ordered by type, then id
    assert [int(r.node_id) for r in rows] == sliced.ids.tolist() == whole.ids.tolist()
    expected = np.asarray([r.vec for r in rows], dtype=np.float32)
    expected /= np.linalg.norm(expected, axis=1, keepdims=True)
    assert np.array_equal(sliced.vectors, whole.vectors)
    assert np.allclose(sliced.vectors, expected, atol=1e-7)
    assert sliced.blocks == whole.blocks == {"a": (0, 128), "b": (128, 214), "c": (214, 300)}
    # the rows, then ceil(size / 7) slices per type, each within one type
    assert len(reads) == 1 + sum(-(-(b - a) // 7) for a, b in sliced.blocks.values())
    assert all(p is None or p["last"] - p["first"] >= 0 for p in reads)


def test_matrix_file_is_streamed_slice_by_slice(embedded: DuckDBStore, tmp_path: Path,
                                               monkeypatch: pytest.MonkeyPatch) -> None:
    """`afr embed` writes a matrix file from slices of the store without holding the
    matrix: the file is byte for byte the one a loaded matrix saves, and maps to it."""
    monkeypatch.setattr(memory, "LOAD_SLICE_ROWS", 7)
    loaded = SearchMatrix.load(embedded, "doc")
    version = embedded.meta_fact(memory.version_key("doc"))
    loaded.save(tmp_path / "loaded.afrvec", version)

    def no_load(*args, **kwargs):
        raise AssertionError("the whole matrix was built")

    monkeypatch.setattr(SearchMatrix, "load", no_load)
    path = memory.matrix_path(embedded, "doc")
    path.unlink(missing_ok=True)
    assert memory.write_matrix_file(embedded, "doc")
    assert path.read_bytes() == (tmp_path / "loaded.afrvec").read_bytes()
    mapped = memory.open_matrix(path, version, 32)
    assert mapped is not None and np.array_equal(mapped.vectors, loaded.vectors)


def test_ties_break_by_node_id() -> None:
    vectors = np.array([[1, 0], [0, 1], [1, 0], [1, 0]], dtype=np.float32)
    matrix = SearchMatrix(np.array([4, 5, 7, 9]), vectors, {"t": (0, 4)})
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


def test_embed_writes_a_mapped_matrix_a_cold_store_uses(embedded: DuckDBStore) -> None:
    path = memory.matrix_path(embedded, "doc")
    assert path is not None and path.exists() and memory.matrix_path(embedded, "doc_rel").exists()
    cold = DuckDBStore(embedded.path)  # a new store object: nothing built in this process
    try:
        # (the fixture's store holds DuckDB's lock in this process; a second connection of
        # the same process is allowed)
        matrix = memory.search_matrix(cold, "doc", 32)
        assert matrix is not None and isinstance(matrix.vectors, np.memmap)
        embedder = HashingEmbedder(32)
        for words, types in (("w1 w3", None), ("w2", ["b"]), ("w5 w9", ["c", "a"])):
            vec = embedder.embed([words])[0]
            got = search(cold, "doc", vec, 15, types=types)
            want = sql_search(embedded, "doc", vec, 15, types=types)
            assert [i for i, _ in got] == [i for i, _ in want]
            assert np.allclose([s for _, s in got], [s for _, s in want], atol=1e-5)
    finally:
        cold.close()


def test_stale_file_is_ignored_then_rebuilt(embedded: DuckDBStore) -> None:
    path = memory.matrix_path(embedded, "doc")
    old = path.read_bytes()
    with embedded.transaction():
        memory.new_vectors_version(embedded, "doc")  # as if another process re-embedded
    version = embedded.get_meta(memory.version_key("doc"))
    assert memory.open_matrix(path, version, 32) is None
    memory.vectors_changed(embedded)
    assert memory.search_matrix(embedded, "doc", 32) is None  # not current: SQL answers
    stop = memory.memory_vectors(embedded)
    assert stop is not None and not stop.build
    use_memory_vectors(embedded)  # a process that searches a lot rebuilds and rewrites it
    assert memory.search_matrix(embedded, "doc", 32) is not None
    assert path.read_bytes() != old and memory.open_matrix(path, version, 32) is not None


def test_damaged_file_is_ignored(embedded: DuckDBStore) -> None:
    path = memory.matrix_path(embedded, "doc")
    version = embedded.get_meta(memory.version_key("doc"))
    assert memory.open_matrix(path, version, 32) is not None
    assert memory.open_matrix(path, version, 64) is None
    path.write_bytes(path.read_bytes()[:-4])
    assert memory.open_matrix(path, version, 32) is None


def test_failed_write_leaves_nothing(embedded: DuckDBStore, monkeypatch) -> None:
    folder = embedded.sidecar_dir()
    for f in folder.iterdir():
        f.unlink()
    folder.rmdir()

    def full_disk(fd: int) -> None:
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(sidecar.os, "fsync", full_disk)
    assert memory.write_matrix_file(embedded, "doc") is False
    assert not folder.exists()  # neither a half-written file nor an empty folder
    monkeypatch.undo()
    folder.mkdir()
    (folder / "doc_rel.afrvec").write_bytes(b"keep")
    monkeypatch.setattr(sidecar.os, "fsync", full_disk)
    assert memory.write_matrix_file(embedded, "doc") is False
    assert [f.name for f in folder.iterdir()] == ["doc_rel.afrvec"]


def test_blocks_are_views_in_place() -> None:
    rng = np.random.default_rng(5)
    ids = rng.permutation(50).astype(np.int64)
    types = np.array(["x", "y", "z"], dtype=object)[rng.integers(0, 3, size=50)]
    matrix = SearchMatrix.from_rows(ids, types, rng.normal(size=(50, 8)).astype(np.float32))
    assert list(matrix.blocks) == ["x", "y", "z"]
    for t, (a, b) in matrix.blocks.items():
        assert set(types[np.isin(ids, matrix.ids[a:b])]) == {t}
        assert np.all(np.diff(matrix.ids[a:b]) > 0)
    query = rng.normal(size=8).astype(np.float32)
    full = matrix.search(query, 50)
    typed = matrix.search(query, 50, types=["z", "x"])
    same([r for r in full if types[list(ids).index(r[0])] in ("x", "z")], typed)
    by_id = matrix.search(query, 50, ids=[int(i) for i in ids[:10]], types=["y"])
    same([r for r in full if r[0] in set(ids[:10].tolist())
          and types[list(ids).index(r[0])] == "y"], by_id)


def same(want: list[tuple[int, float]], got: list[tuple[int, float]]) -> None:
    assert [i for i, _ in got] == [i for i, _ in want]
    assert np.allclose([s for _, s in got], [s for _, s in want], atol=1e-5)


@pytest.mark.parametrize("in_memory", [False, True])
def test_graph_strand_sized_to_quota_equals_the_full_list(embedded: DuckDBStore,
                                                           in_memory: bool) -> None:
    from afr.methods.af.paper_ranking import graph_strand, graph_strand_all

    if in_memory:
        use_memory_vectors(embedded)
    else:
        search_with_sql(embedded)
    rng = np.random.default_rng(7)
    embedder = HashingEmbedder(32)
    for trial in range(25):
        vec = embedder.embed([" ".join(f"w{i}" for i in rng.integers(0, 40, size=3))])[0]
        # node ids ≥ 300 have no vector; levels come in a few groups, some large
        nodes = rng.choice(320, size=int(rng.integers(1, 120)), replace=False)
        levels = rng.choice([1, 2, 3, 5, 8], size=len(nodes), p=[.5, .1, .2, .1, .1])
        grounded = sorted(zip(nodes.tolist(), levels.tolist(), strict=True),
                          key=lambda a: (a[1], a[0]))
        full = graph_strand_all(embedded, vec, grounded)
        # as step 6 ranked before it was sized: one search over all, then a sort
        level = dict(grounded)
        scored = dict(search(embedded, "doc", vec, len(level), ids=list(level)))
        before = sorted(level, key=lambda n: (level[n], -scored.get(n, -1.0), n))
        assert [c.node_id for c in full] == before
        for quota in (1, 3, 10, 20, len(grounded), len(grounded) + 5):
            sized = graph_strand(embedded, vec, grounded, quota)
            assert [(c.node_id, c.level) for c in sized] == \
                [(c.node_id, c.level) for c in full[:quota]], (trial, quota)
