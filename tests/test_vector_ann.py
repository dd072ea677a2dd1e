"""PostgreSQL answers vector searches through its HNSW index (not a scan of every vector),
and falls back to the exact search when a type filter leaves too few approximate hits."""

from __future__ import annotations

from importlib import import_module
from pathlib import Path

import numpy as np
import pytest
from skbutil import write_skb

from afr.embed.hashing import HashingEmbedder
from afr.load import load_skb_dir
from afr.settings import SettingsError, resolve_settings
from afr.store import PostgresStore, describe_store, postgres_store, size_text
from afr.vectors import embed_store
from afr.vectors.search import search

# the module (afr.vectors.search is also the name of its function in afr.vectors)
search_module = import_module("afr.vectors.search")

WORDS = ["alpha", "beta", "gamma", "delta", "epsilon", "zeta", "theta", "kappa", "lambda", "sigma", "omega", "rho", "tau", "phi", "chi", "psi", "iota", "eta", "nu", "xi"]


@pytest.fixture
def embedded_pg(pg_store: PostgresStore, tmp_path: Path,
                monkeypatch: pytest.MonkeyPatch) -> PostgresStore:
    # "common" (594 nodes) gets an index of its own, "rare" (6) is searched exactly
    monkeypatch.setattr(postgres_store, "TYPE_INDEX_MIN_NODES", 100)
    rng = np.random.default_rng(7)
    nodes = []
    for i in range(600):
        kind = "rare" if i % 100 == 0 else "common"  # 1 % of the nodes are "rare"
        words = " ".join(rng.choice(WORDS, size=6))
        nodes.append({"id": i, "type": kind, "name": f"n{i} {words}", "text": words})
    schema = {"name": "ann", "directed": False,
              "node_types": {"common": {}, "rare": {}},
              "edge_types": {"r": {"source": "common", "target": "common"}}}
    load_skb_dir(pg_store, write_skb(tmp_path / "skb", schema, nodes, [(1, "r", 2)]),
                 progress=False)
    embed_store(pg_store, HashingEmbedder(64), progress=False)
    return pg_store


def exact(store: PostgresStore, vec: np.ndarray, k: int, types: list[str] | None) -> list[int]:
    rows = store.run("vss/topk.sql", {"q": [float(x) for x in vec], "k": k, "types": types},
                     variant="doc", dim=64, types=bool(types), ids=False, exclude=False)
    return [int(r[0]) for r in rows]


@pytest.mark.postgres
def test_unfiltered_search_is_planned_on_the_index(embedded_pg: PostgresStore) -> None:
    assert embedded_pg.has_vector_index("doc")
    statements = embedded_pg.sql("vss/topk_ann.sql", variant="doc", dim=64, ef_search=40,
                                 types=False, type_code=None, exclude=False)
    vec = HashingEmbedder(64).embed(["alpha beta gamma"])[0]
    with embedded_pg.lock:
        embedded_pg.execute("SET enable_seqscan = off")  # a 600-row table would be scanned
        try:
            plan = "\n".join(r[0] for r in embedded_pg.query(
                "EXPLAIN " + statements[-1], {"q": [float(x) for x in vec], "k": 10,
                                              "fetch": 11}))
        finally:
            embedded_pg.execute("RESET enable_seqscan")
    assert "emb_doc_hnsw" in plan


@pytest.mark.postgres
def test_approximate_results_agree_with_exact(embedded_pg: PostgresStore,
                                              monkeypatch: pytest.MonkeyPatch) -> None:
    answered: list[bool] = []
    real = search_module._search_ann

    def spy(*args, **kwargs):
        rows = real(*args, **kwargs)
        answered.append(rows is not None)
        return rows

    monkeypatch.setattr(search_module, "_search_ann", spy)
    embedder = HashingEmbedder(64)
    agree = total = 0
    for text in ("alpha beta", "sigma omega rho", "n5 kappa", "theta", "xi nu eta"):
        vec = embedder.embed([text])[0]
        for types in (None, ["common"]):
            got = [i for i, _ in search(embedded_pg, "doc", vec, 10, types=types)]
            want = exact(embedded_pg, vec, 10, types)
            assert len(got) == 10 and len(set(got)) == 10
            agree += len(set(got) & set(want))
            total += 10
    assert agree / total >= 0.8  # HNSW is approximate; on 600 nodes it is nearly exact
    assert answered.count(True) >= 5  # the unfiltered searches went through the index


@pytest.mark.postgres
def test_rare_type_filter_is_exact_and_complete(embedded_pg: PostgresStore) -> None:
    vec = HashingEmbedder(64).embed(["alpha"])[0]
    got = search(embedded_pg, "doc", vec, 6, types=["rare"])
    assert [i for i, _ in got] == exact(embedded_pg, vec, 6, ["rare"])
    assert len(got) == 6  # all six rare nodes, though few are near the query


@pytest.mark.postgres
def test_exact_mode_never_uses_the_index(embedded_pg: PostgresStore,
                                         monkeypatch: pytest.MonkeyPatch) -> None:
    from settings_util import settings_of

    from afr.pipeline.ask import Pipeline
    from afr.vectors.exact import exact_search, use_exact_search

    def refuse(*args, **kwargs):
        raise AssertionError("the HNSW index was used in exact mode")

    assert not exact_search(embedded_pg)
    Pipeline(embedded_pg, settings_of(llm__offline=True, vectors__exact_search=True))
    assert exact_search(embedded_pg)  # AskConfig.exact_search puts the store in exact mode
    monkeypatch.setattr(search_module, "_search_ann", refuse)
    embedder = HashingEmbedder(64)
    for text in ("alpha beta", "sigma omega rho"):
        vec = embedder.embed([text])[0]
        for types in (None, ["common"]):
            got = [i for i, _ in search(embedded_pg, "doc", vec, 10, types=types)]
            assert got == exact(embedded_pg, vec, 10, types)
    use_exact_search(embedded_pg, False)
    assert not exact_search(embedded_pg)


def _plan(store: PostgresStore, statements: list[str], params: dict) -> str:
    with store.lock:
        store.execute("SET enable_seqscan = off")  # a 600-row table would be scanned
        try:
            for stmt in statements[:-1]:
                store.execute(stmt)
            return "\n".join(r[0] for r in store.query("EXPLAIN " + statements[-1], params))
        finally:
            store.execute("RESET enable_seqscan")


@pytest.mark.postgres
def test_each_type_has_its_own_index_that_typed_searches_use(
        embedded_pg: PostgresStore, monkeypatch: pytest.MonkeyPatch) -> None:
    codes = embedded_pg.type_codes()
    assert codes == {"common": 0, "rare": 1}
    for variant in ("doc", "doc_rel"):
        assert {t: embedded_pg.type_vector_index(variant, t) for t in codes} == \
            {"common": 0, "rare": None}
    vec = HashingEmbedder(64).embed(["alpha beta"])[0]
    statements = embedded_pg.sql("vss/topk_ann.sql", variant="doc", dim=64, ef_search=400,
                                 types=False, type_code=codes["common"], exclude=False)
    plan = _plan(embedded_pg, statements, {"q": [float(x) for x in vec], "k": 10,
                                           "fetch": 10})
    assert "emb_doc_hnsw_t0" in plan
    # a typed search asks the type's index for k, and needs no exact fallback
    embedder = HashingEmbedder(64)
    texts = ("alpha beta", "sigma omega rho", "n5 kappa", "theta", "xi nu eta")
    want = {t: exact(embedded_pg, embedder.embed([t])[0], 20, ["common"]) for t in texts}
    fallbacks: list[str] = []
    real_run = embedded_pg.run

    def run(template: str, *args, **kwargs):
        if template == "vss/topk.sql":
            fallbacks.append("exact")
        return real_run(template, *args, **kwargs)

    monkeypatch.setattr(embedded_pg, "run", run)
    by_type: list[int] = []
    real_type_ann = search_module._search_type_ann
    monkeypatch.setattr(search_module, "_search_type_ann",
                        lambda *a, **kw: by_type.append(a[4]) or real_type_ann(*a, **kw))
    agree = 0
    for text in texts:
        vec = embedder.embed([text])[0]
        got = [i for i, _ in search(embedded_pg, "doc", vec, 20, types=["common"])]
        assert len(got) == 20 and all(i % 100 for i in got)
        agree += len(set(got) & set(want[text]))
    assert not fallbacks and by_type == [codes["common"]] * len(texts)
    assert agree / 100 >= 0.9


@pytest.mark.postgres
def test_a_rebuild_keeps_the_per_type_indexes(embedded_pg: PostgresStore) -> None:
    embed_store(embedded_pg, HashingEmbedder(64), rebuild=True, progress=False)
    names = {r[0] for r in embedded_pg.query(
        "SELECT indexname FROM pg_indexes WHERE schemaname = current_schema()")}
    assert {"emb_doc_hnsw_t0", "emb_doc_rel_hnsw_t0"} <= names
    assert "emb_doc_hnsw_t1" not in names  # the rare type has none
    assert not any("rebuild" in n for n in names)
    assert embedded_pg.type_vector_index("doc", "common") == 0


@pytest.mark.postgres
def test_a_table_without_type_codes_is_searched_and_topped_up(
        embedded_pg: PostgresStore) -> None:
    """Vectors written before type codes existed: searched through the index over all
    types, and an incremental embed still writes to the table."""
    embedded_pg.execute("DROP INDEX emb_doc_hnsw_t0")
    embedded_pg.execute("ALTER TABLE emb_doc DROP COLUMN type_code")
    embedded_pg.execute("DELETE FROM emb_doc WHERE node_id >= 590")
    embedded_pg.forget_facts()
    embedded_pg._type_indexes.clear()
    assert embedded_pg.type_vector_index("doc", "common") is None
    report = embed_store(embedded_pg, HashingEmbedder(64), progress=False)
    assert report.embedded["doc"] == 10
    vec = HashingEmbedder(64).embed(["alpha beta"])[0]
    got = search(embedded_pg, "doc", vec, 6, types=["rare"])
    assert [i for i, _ in got] == exact(embedded_pg, vec, 6, ["rare"])


@pytest.mark.postgres
def test_index_builds_get_memory_and_fall_back_to_one_worker(
        embedded_pg: PostgresStore, monkeypatch: pytest.MonkeyPatch) -> None:
    """Each HNSW build runs with memory sized for its graph and parallel workers; when the
    server cannot give a parallel build its shared memory (a container's small /dev/shm),
    the build is repeated without workers instead of failing the embedding."""
    store = embedded_pg
    settings: list[tuple[str, str]] = []
    real_execute = PostgresStore.execute
    refused = []

    def execute(self, sql, params=None):
        if sql.startswith("CREATE INDEX"):
            settings.append((self.query("SHOW maintenance_work_mem")[0][0],
                             self.query("SHOW max_parallel_maintenance_workers")[0][0]))
            if not refused:  # the first parallel build is refused, as PostgreSQL does
                refused.append(sql)
                raise postgres_store.StoreError(
                    'PostgreSQL: the disk is full (could not resize shared memory segment '
                    '"/PostgreSQL.1" to 1073741824 bytes: No space left on device)')
        return real_execute(self, sql, params)

    for name in [r[0] for r in store.query(
            "SELECT indexname FROM pg_indexes WHERE schemaname = current_schema() "
            "AND indexname LIKE 'emb_doc_hnsw%'")]:
        store.execute(f"DROP INDEX {name}")
    store._vector_indexes.clear()
    monkeypatch.setattr(PostgresStore, "execute", execute)
    store.build_vector_index("doc", 64)
    # refused with 2 workers, then built by one backend; the per-type index with workers
    assert settings[0][1] == "2" and settings[1][1] == "0" and settings[2][1] == "2"
    assert all(mem == "64MB" for mem, _ in settings)  # 600 small vectors: the floor
    # the settings were the build's own: the session is back at the server's defaults
    assert store.query("SHOW max_parallel_maintenance_workers")[0][0] != "0"
    assert store.has_vector_index("doc") and store.type_vector_index("doc", "common") == 0
    assert postgres_store.hnsw_build_memory_mb(1_900_000, 384) == 1024
    monkeypatch.setenv("AFR_PG_INDEX_MEMORY_MB", "4096")
    cap = resolve_settings(use_file=False).settings.store.pg_index_memory_mb
    assert postgres_store.hnsw_build_memory_mb(1_900_000, 384, cap) == 4096
    assert postgres_store.hnsw_build_memory_mb(100_000, 384, cap) == 244
    monkeypatch.setenv("AFR_PG_INDEX_MEMORY_MB", "lots")
    with pytest.raises(SettingsError, match="AFR_PG_INDEX_MEMORY_MB"):
        resolve_settings(use_file=False)


@pytest.mark.postgres
def test_server_memory_reports_the_pool_and_the_hnsw_indexes(embedded_pg: PostgresStore
                                                            ) -> None:
    """``afr info`` shows the server's shared_buffers next to the HNSW indexes of the
    store's schema (no other schema's, no B-tree)."""
    pool, indexes = embedded_pg.server_memory()
    assert pool == embedded_pg.query(
        "SELECT pg_size_bytes(current_setting('shared_buffers'))")[0][0]
    names = [r[0] for r in embedded_pg.query(
        "SELECT indexname FROM pg_indexes WHERE schemaname = current_schema() "
        "AND indexdef LIKE '%USING hnsw%'")]
    assert len(names) == 4  # doc and doc_rel: all types, and "common"'s own
    assert indexes == sum(embedded_pg.query(
        f"SELECT pg_relation_size('{name}')")[0][0] for name in names) > 0
    assert describe_store(embedded_pg)["server_memory"] == {
        "shared_buffers": pool, "vector_indexes": indexes}


def test_sizes_are_written_for_people() -> None:
    assert size_text(128 << 20) == "128 MB"
    assert size_text(1016 << 20) == "1.0 GB"  # not "1016 MB"
    assert size_text(3 << 30) == "3.0 GB"
