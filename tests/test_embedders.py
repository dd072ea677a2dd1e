"""Embedders: the built-in one, an OpenAI-compatible server, spec parsing."""

from __future__ import annotations

import random
import re
import unicodedata
import zlib

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


class _OneTextAtATime(HashingEmbedder):
    """The built-in embedder as it was before it embedded batches at once (kept here to
    check that the batched one gives the very same bits)."""

    @staticmethod
    def _old_hashes(text: str) -> list[int]:
        text = unicodedata.normalize("NFKC", text).lower().replace("'", "").replace("’", "")
        words = re.findall(r"\w+", text)
        hashes = [zlib.crc32(f"b:{a} {b}".encode()) for a, b in
                  zip(words, words[1:], strict=False)]
        for word in words:
            padded = f"<{word}>"
            feats = [f"w:{word}"]
            for n in (3, 4):
                feats += [f"c:{padded[i:i + n]}" for i in range(len(padded) - n + 1)]
            hashes += [zlib.crc32(f.encode("utf-8")) for f in feats]
        return hashes

    def embed(self, texts):  # type: ignore[override]
        out = np.zeros((len(texts), self.dim), dtype=np.float32)
        for row, text in enumerate(texts):
            hashes = np.array(self._old_hashes(text or ""), dtype=np.uint32)
            if not len(hashes):
                continue
            slots = (hashes & 0x7FFFFFFF) % self.dim
            signs = np.where(hashes & 0x80000000, 1.0, -1.0)
            counts = np.bincount(slots, weights=signs, minlength=self.dim)
            val = counts.astype(np.float32)
            with np.errstate(divide="ignore"):
                out[row] = np.sign(val) * (1.0 + np.log(np.abs(val) + 1e-12).clip(min=0))
            norm = np.linalg.norm(out[row])
            if norm:
                out[row] /= norm
        return out


@pytest.mark.parametrize("dim", [16, 100, 384])
def test_batched_hashing_is_bit_identical(dim: int) -> None:
    rng = random.Random(dim)
    # (with characters whose normalising or lower-casing depends on neighbours or
    # changes length: final sigma, ligatures, dotted I, combining marks, odd spaces)
    alphabet = "abcdeéfghijklmnopqrstuvwxyzÄÖß'’ 0123456789-,.\t\nΣσﬁİ\u0301\u00a0\u3000\u2028"
    words = ["".join(rng.choice(alphabet) for _ in range(rng.randint(1, 9)))
             for _ in range(300)]
    texts = ["", " ", "''", None] + [
        " ".join(rng.choice(words) for _ in range(rng.choice([0, 1, 2, 5, 40, 400])))
        for _ in range(400)]
    rng.shuffle(texts)
    embedder = HashingEmbedder(dim)
    old = _OneTextAtATime(dim).embed(texts)
    for batch in (texts, texts[:7], texts[7:]):  # the second and third reuse memoised words
        new = embedder.embed(batch)
        assert new.dtype == np.float32
        want = old if batch is texts else old[:7] if len(batch) == 7 else old[7:]
        assert new.tobytes() == want.tobytes()
    assert HashingEmbedder(dim).embed([]).shape == (0, dim)


def test_hashing_is_thread_safe() -> None:
    """An evaluation embeds questions from several threads into one embedder, whose word
    memo grows as it goes: the vectors are those of a fresh embedder, one text at a time."""
    import threading

    from afr.embed.hashing import HashingEmbedder

    texts = [f"question {i} about word{i % 97} and thing{i * 7919 % 1000}" for i in range(600)]
    shared = HashingEmbedder(64)
    got: dict[int, np.ndarray] = {}

    def work(start: int) -> None:
        for i in range(start, len(texts), 4):
            got[i] = shared.embed([texts[i]])[0]

    threads = [threading.Thread(target=work, args=(s,)) for s in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    fresh = HashingEmbedder(64)
    for i, text in enumerate(texts):
        assert np.array_equal(got[i], fresh.embed([text])[0]), i
