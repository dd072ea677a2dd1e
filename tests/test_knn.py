"""The similarity graph's kNN, exact and LSH, here and as Spark jobs; its recall; and the
embedding of a Spark store by its executors (issue 24, item 2)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from skbutil import toy_skb

from afr.embed import make_embedder
from afr.load import load_skb_dir
from afr.vectors import embed_store
from afr.vectors.documents import DocumentBuilder
from afr.vectors.knn import (
    LshParams,
    Neighbours,
    exact_neighbours,
    lsh_neighbours,
    recall_at_k,
)
from afr.vectors.similarity import knn_candidates, normalise


def _clustered(n: int = 600, dim: int = 32, clusters: int = 12, seed: int = 0) -> np.ndarray:
    """Unit vectors around a few centres, as embeddings of similar documents are."""
    rng = np.random.default_rng(seed)
    centres = rng.standard_normal((clusters, dim))
    points = centres[rng.integers(0, clusters, n)] + 0.3 * rng.standard_normal((n, dim))
    return normalise(points.astype(np.float32))


def _lists(found: Neighbours) -> dict[int, set[int]]:
    out: dict[int, set[int]] = {}
    for s, d in zip(found.src.tolist(), found.dst.tolist(), strict=True):
        out.setdefault(s, set()).add(d)
    return out


def test_recall_of_the_exact_lists_is_one_and_of_half_of_them_a_half() -> None:
    vectors = _clustered()
    exact = exact_neighbours(vectors, 10, chunk_mb=0.01)  # several blocks
    assert recall_at_k(vectors, exact, 10, sample=200) == 1.0
    every_other = np.arange(len(exact.src)) % 2 == 0  # 5 of each row's 10
    half = Neighbours(exact.src[every_other], exact.dst[every_other])
    assert recall_at_k(vectors, half, 10, sample=200) == pytest.approx(0.5)
    wrong = Neighbours(exact.src, (exact.dst + 1) % len(vectors))  # other rows' lists
    assert recall_at_k(vectors, wrong, 10, sample=200) < 0.2


def test_exact_neighbours_are_the_old_candidates() -> None:
    vectors = _clustered(n=300)
    pairs = knn_candidates(vectors, 7, chunk_mb=0.002)
    scores = vectors @ vectors.T
    np.fill_diagonal(scores, -np.inf)
    truth = {(min(a, b), max(a, b)) for a in range(300)
             for b in np.argsort(-scores[a])[:7].tolist()}
    assert set(zip(pairs.lo.tolist(), pairs.hi.tolist(), strict=True)) == truth


def test_lsh_lists_k_distinct_others_with_high_recall_on_clusters() -> None:
    vectors = _clustered()
    found = lsh_neighbours(vectors, 10, LshParams(tables=8, bits=4, bucket_max=128))
    lists = _lists(found)
    assert all(len(v) == 10 and row not in v for row, v in lists.items())
    assert len(lists) == len(vectors)
    recall = recall_at_k(vectors, found, 10, sample=200)
    assert 0.9 <= recall <= 1.0
    # one table of many bits: small buckets, most true neighbours missed
    assert recall_at_k(vectors, lsh_neighbours(vectors, 10, LshParams(tables=1, bits=10)),
                       10, sample=200) < recall


def test_spark_knn_finds_what_one_machine_finds(spark_store) -> None:
    from afr.vectors import spark_knn

    session = spark_store.dataframe_session()
    vectors = _clustered(n=400)
    here = exact_neighbours(vectors, 8, chunk_mb=0.02)
    there = spark_knn.exact_neighbours(session, vectors, 8, chunk_mb=0.02)
    assert _lists(there) == _lists(here)
    params = LshParams(tables=4, bits=3, bucket_max=64)
    assert _lists(spark_knn.lsh_neighbours(session, vectors, 8, params)) == \
        _lists(lsh_neighbours(vectors, 8, params))


def _vectors(store, variant: str = "doc") -> dict[int, np.ndarray]:
    (stmt,) = store.sql("embed/all_vectors.sql", variant=variant)
    return {int(r.node_id): np.asarray(r.vec, np.float32) for r in store.query(stmt)}


def test_spark_embedding_resumes_and_equals_duckdbs(spark_store, duck_store, tmp_path: Path,
                                                    monkeypatch) -> None:
    skb = toy_skb(tmp_path / "toy")
    for store in (spark_store, duck_store):
        load_skb_dir(store, skb, progress=False)
    embed_store(duck_store, make_embedder("hash"), variants=["doc"], progress=False)
    monkeypatch.setattr(spark_store, "document_batch", 3)
    calls = {"n": 0}
    build = DocumentBuilder.build

    def interrupted(self, ids):
        calls["n"] += 1
        if calls["n"] == 2:
            raise KeyboardInterrupt  # the user stops the second chunk
        return build(self, ids)

    monkeypatch.setattr(DocumentBuilder, "build", interrupted)
    with pytest.raises(KeyboardInterrupt):
        embed_store(spark_store, make_embedder("hash"), variants=["doc"], batch_size=2,
                    progress=False)
    assert len(_vectors(spark_store)) == 3  # the first chunk was committed
    report = embed_store(spark_store, make_embedder("hash"), variants=["doc"],
                         batch_size=2, progress=False)  # batches smaller than a task
    assert report.embedded["doc"] == 5  # only the nodes still without a vector
    duck, spark = _vectors(duck_store), _vectors(spark_store)
    assert duck.keys() == spark.keys() and len(duck) == 8
    assert all(np.array_equal(duck[i], spark[i]) for i in duck)
    parts = spark_store.tables.table("emb_doc").parts
    assert len(parts) == 3  # written by the executors, a part per chunk
