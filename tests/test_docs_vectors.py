"""Node documents and vectors on both stores: incremental embedding, search, model checks."""

from __future__ import annotations

import zlib
from collections.abc import Sequence
from pathlib import Path

import numpy as np
import pytest
from skbutil import toy_skb

from afr.errors import EmbeddingError
from afr.load import load_skb_dir
from afr.store import Store
from afr.vectors import embed_store, query_vector
from afr.vectors.documents import build_documents
from afr.vectors.search import save_query_vectors, search


class WordEmbedder:
    """A tiny bag-of-words embedder, enough to test the plumbing."""

    def __init__(self, model_id: str = "test-words", dim: int = 32) -> None:
        self.model_id = model_id
        self.dim = dim
        self.calls = 0

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        self.calls += 1
        out = np.zeros((len(texts), self.dim), dtype=np.float32)
        for i, text in enumerate(texts):
            for word in text.lower().split():
                out[i, zlib.crc32(word.encode()) % self.dim] += 1.0
            norm = np.linalg.norm(out[i])
            if norm:
                out[i] /= norm
        return out


@pytest.fixture
def loaded(store: Store, tmp_path: Path) -> Store:
    load_skb_dir(store, toy_skb(tmp_path / "skb"), progress=False)
    return store


def _id(store: Store, ext_id: str) -> int:
    ids = {e: i for i, e in store.query("SELECT id, ext_id FROM nodes")}
    return ids[ext_id]


def test_documents(loaded: Store) -> None:
    p2 = _id(loaded, "p2")
    doc = build_documents(loaded, [p2], "doc")[p2]
    assert doc.startswith("Graph attention networks (paper)")
    assert "year: 2018" in doc and "venue: name: ICLR" in doc and "relations" not in doc
    rel = build_documents(loaded, [p2], "doc_rel")[p2]
    assert rel.startswith(doc)
    assert "author_writes_paper ← Petar Velickovic" in rel
    assert "paper_cites_paper → Semi-supervised classification with GCNs" in rel
    # 2-hop through the single author: his other relations
    a1 = _id(loaded, "a1")
    assert "also known as: K. He" in build_documents(loaded, [a1], "doc")[a1]


def test_hub_documents_are_capped(store: Store, tmp_path: Path) -> None:
    from skbutil import TOY_SCHEMA, write_skb

    nodes = [{"id": "f", "type": "field", "name": "hub field"}] + [
        {"id": f"p{i}", "type": "paper", "name": f"paper {i:03d}"} for i in range(300)
    ]
    edges = [(f"p{i}", "has_field", "f") for i in range(300)]
    load_skb_dir(store, write_skb(tmp_path / "hub", TOY_SCHEMA, nodes, edges), progress=False)
    hub = _id(store, "f")
    doc = build_documents(store, [hub], "doc_rel")[hub]
    assert "(and 290 more)" in doc and len(doc) < 2000


def test_embed_incremental_and_search(loaded: Store) -> None:
    emb = WordEmbedder()
    report = embed_store(loaded, emb, batch_size=3, progress=False)
    assert report.embedded == {"doc": 8, "doc_rel": 8} and report.dim == 32
    again = embed_store(loaded, emb, progress=False)
    assert again.embedded == {"doc": 0, "doc_rel": 0}
    assert loaded.embedding_model("doc") == ("test-words", 32)
    q = query_vector(loaded, emb, "graph attention networks")
    hits = search(loaded, "doc", q, 3)
    assert hits[0][0] == _id(loaded, "p2") and 0.0 < hits[0][1] <= 1.0001
    only_authors = search(loaded, "doc_rel", q, 10, types=["author"])
    assert {h[0] for h in only_authors} == {_id(loaded, a) for a in ("a1", "a2", "a3")}
    restricted = search(loaded, "doc", q, 10, ids=[_id(loaded, "p1"), _id(loaded, "p3")])
    assert {h[0] for h in restricted} == {_id(loaded, "p1"), _id(loaded, "p3")}
    assert search(loaded, "doc", q, 10, ids=[]) == []
    excluded = search(loaded, "doc", q, 3, exclude=[_id(loaded, "p2")])
    assert _id(loaded, "p2") not in {h[0] for h in excluded}


def test_query_vector_cache(loaded: Store) -> None:
    emb = WordEmbedder()
    embed_store(loaded, emb, progress=False)
    calls = emb.calls
    a = query_vector(loaded, emb, "some question")
    b = query_vector(loaded, emb, "some question")
    assert emb.calls == calls + 1 and np.allclose(a, b)
    # nothing written yet (an ask saves after its answers), then one save writes it
    count = "SELECT count(*) FROM query_embeddings"
    assert loaded.query(count)[0][0] == 0
    save_query_vectors(loaded)
    assert loaded.query(count)[0][0] == 1
    save_query_vectors(loaded)  # nothing pending: nothing happens
    loaded.runtime.pending_vectors.clear()  # a new process
    c = query_vector(loaded, emb, "some question")  # from the store's cache now
    assert emb.calls == calls + 1 and np.allclose(a, c)


def test_embedding_model_mismatch(loaded: Store) -> None:
    embed_store(loaded, WordEmbedder(), progress=False)
    with pytest.raises(EmbeddingError, match="made by test-words"):
        embed_store(loaded, WordEmbedder("another-model"), progress=False)
    report = embed_store(loaded, WordEmbedder("another-model", 16), rebuild=True, progress=False)
    assert report.dim == 16 and loaded.embedding_model("doc_rel") == ("another-model", 16)


def test_embedding_resumes_after_failure(loaded: Store) -> None:
    class Flaky(WordEmbedder):
        def embed(self, texts: Sequence[str]) -> np.ndarray:
            if self.calls == 1:
                self.calls += 1
                raise EmbeddingError("service went away")
            return super().embed(texts)

    flaky = Flaky()
    with pytest.raises(EmbeddingError):
        embed_store(loaded, flaky, variants=["doc"], batch_size=3, progress=False)
    done = loaded.query("SELECT count(*) FROM emb_doc")[0][0]
    assert done == 3  # the first batch was committed
    report = embed_store(loaded, WordEmbedder(), variants=["doc"], batch_size=3, progress=False)
    assert report.embedded["doc"] == 5 and report.total["doc"] == 8


def test_search_without_vectors(loaded: Store) -> None:
    with pytest.raises(EmbeddingError, match="afr embed"):
        search(loaded, "doc", np.zeros(4, dtype=np.float32), 3)


def test_two_hop_cache_gives_the_same_documents(loaded: Store) -> None:
    ids = sorted(i for (i,) in loaded.query("SELECT id FROM nodes"))
    plain = build_documents(loaded, ids, "doc_rel")
    cache: dict = {}
    batched: dict[int, str] = {}
    for start in range(0, len(ids), 2):  # small batches: later ones reuse cached hops
        batched.update(build_documents(loaded, ids[start:start + 2], "doc_rel",
                                       two_hop_cache=cache))
    assert batched == plain
    assert cache  # second hops were really cached


def test_full_two_hop_cache_keeps_the_hops_a_batch_uses(loaded: Store,
                                                         monkeypatch: pytest.MonkeyPatch) -> None:
    """A cache that overflows is emptied, but not under the batch that is using it."""
    import afr.vectors.documents as documents

    monkeypatch.setattr(documents, "TWO_HOP_CACHE_NODES", 1)
    ids = sorted(i for (i,) in loaded.query("SELECT id FROM nodes"))
    plain = build_documents(loaded, ids, "doc_rel")
    builder = documents.DocumentBuilder(loaded, "doc_rel")
    batched: dict[int, str] = {}
    for start in range(0, len(ids), 2):
        batched.update(builder.build(ids[start:start + 2]))
    assert batched == plain
