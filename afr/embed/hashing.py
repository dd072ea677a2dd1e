"""The built-in embedder: hashed word and character n-grams. Deterministic, offline.

No model to download, so `afr ask` works on a fresh machine. It captures surface
similarity (shared words, shared spelling fragments — "Alzheimers" is close to
"Alzheimer's"), not meaning; use an OpenAI-compatible or sentence-transformers model for that.
"""

from __future__ import annotations

import re
import unicodedata
import zlib
from collections.abc import Sequence

import numpy as np

_WORD = re.compile(r"\w+", re.UNICODE)
_CACHE_WORDS = 500_000  # memoised words per embedder (a few hundred MB at most)


class HashingEmbedder:
    # Embedding a query here is cheaper than looking it up in the store's cache.
    cache_queries = False

    def __init__(self, dim: int = 384) -> None:
        if dim < 16:
            raise ValueError("the hashing embedder needs at least 16 dimensions")
        self._dim = int(dim)
        self.model_id = "hash-ngram-v1"
        self._cache: dict[str, list[int]] = {}

    @property
    def dim(self) -> int:
        return self._dim

    def _word_hashes(self, word: str) -> list[int]:
        """The hashes of a word's own features (the word and its character 3- and
        4-grams), memoised: words repeat across documents far more than they vary."""
        hashes = self._cache.get(word)
        if hashes is None:
            padded = f"<{word}>"
            feats = [f"w:{word}"]
            for n in (3, 4):
                feats += [f"c:{padded[i:i + n]}" for i in range(len(padded) - n + 1)]
            hashes = [zlib.crc32(f.encode("utf-8")) for f in feats]
            if len(self._cache) < _CACHE_WORDS:
                self._cache[word] = hashes
        return hashes

    def _hashes(self, text: str) -> list[int]:
        text = unicodedata.normalize("NFKC", text).lower().replace("'", "").replace("’", "")
        words = _WORD.findall(text)
        hashes = [zlib.crc32(f"b:{a} {b}".encode()) for a, b in
                  zip(words, words[1:], strict=False)]
        for w in words:
            hashes += self._word_hashes(w)
        return hashes

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        out = np.zeros((len(texts), self._dim), dtype=np.float32)
        for row, text in enumerate(texts):
            hashes = np.array(self._hashes(text or ""), dtype=np.uint32)
            if not len(hashes):
                continue
            # The top bit signs the feature, so collisions cancel out instead of piling up.
            slots = (hashes & 0x7FFFFFFF) % self._dim
            signs = np.where(hashes & 0x80000000, 1.0, -1.0)
            counts = np.bincount(slots, weights=signs, minlength=self._dim)
            val = counts.astype(np.float32)
            with np.errstate(divide="ignore"):
                out[row] = np.sign(val) * (1.0 + np.log(np.abs(val) + 1e-12).clip(min=0))
            norm = np.linalg.norm(out[row])
            if norm:
                out[row] /= norm
        return out
