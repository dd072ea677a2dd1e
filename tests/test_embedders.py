"""Embedders: the built-in one, an OpenAI-compatible server, spec parsing."""

from __future__ import annotations

import numpy as np
import pytest
from fake_openai import FakeOpenAI

from afr.embed import HashingEmbedder, make_embedder
from afr.errors import EmbeddingError


def test_hashing_is_deterministic_and_normalised() -> None:
    e = HashingEmbedder(128)
    a = e.embed(["Alzheimer's disease", "lung cancer", ""])
    b = HashingEmbedder(128).embed(["Alzheimer's disease", "lung cancer", ""])
    assert np.array_equal(a, b) and a.shape == (3, 128) and a.dtype == np.float32
    assert np.allclose(np.linalg.norm(a[:2], axis=1), 1.0) and not a[2].any()


def test_hashing_tolerates_misspellings() -> None:
    v = HashingEmbedder().embed(["Alzheimer disease", "Alzheimers diseas", "asthma attack"])
    assert v[0] @ v[1] > v[0] @ v[2] + 0.3


def test_openai_compatible_batches_and_dimension() -> None:
    with FakeOpenAI(embed_dim=24) as server:
        e = make_embedder("openai:fake-embed", base_url=server.base_url, api_key="k",
                          batch_size=100)
        vectors = e.embed([f"text {i}" for i in range(250)])
        assert vectors.shape == (250, 24) and e.dim == 24
        assert len([r for r in server.requests if r["_path"].endswith("/embeddings")]) == 3
        assert e.model_id == "openai:fake-embed"
        assert np.allclose(np.linalg.norm(vectors, axis=1), 1.0)


def test_openai_unreachable_is_one_line() -> None:
    e = make_embedder("openai:m", base_url="http://127.0.0.1:1/v1", api_key="k",
                      max_retries=1)
    e.sleep = lambda s: None
    with pytest.raises(EmbeddingError) as info:
        e.embed(["x"])
    assert "\n" not in str(info.value)


@pytest.mark.parametrize("spec", ["nonsense", "hash:abc", "openai:", "st:"])
def test_bad_specs(spec: str) -> None:
    with pytest.raises(EmbeddingError):
        make_embedder(spec)


def test_st_missing_is_clear() -> None:
    try:
        import sentence_transformers  # noqa: F401
    except ImportError:
        with pytest.raises(EmbeddingError, match="afr\\[st\\]"):
            make_embedder("st:all-MiniLM-L6-v2")
