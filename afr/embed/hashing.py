"""The built-in embedder: hashed word and character n-grams. Deterministic, offline.

No model to download, so `afr ask` works on a fresh machine. It captures surface
similarity (shared words, shared spelling fragments — "Alzheimers" is close to
"Alzheimer's"), not meaning; use an OpenAI-compatible or sentence-transformers model for that.
"""

from __future__ import annotations

import itertools
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
        word_hashes = self._word_hashes
        for w in words:
            hashes += word_hashes(w)
        return hashes

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        """One pass over the whole batch: every text's feature hashes into one array,
        counted per (row, slot) by a single bincount. The same arithmetic, in the same
        float32 steps, as embedding one text at a time (tests/test_embedders.py checks
        bit-identity against that)."""
        n, dim = len(texts), self._dim
        per_text = [self._hashes(text or "") for text in texts]
        lengths = np.fromiter((len(h) for h in per_text), dtype=np.int64, count=n)
        hashes = np.fromiter(itertools.chain.from_iterable(per_text), dtype=np.uint32,
                             count=int(lengths.sum()))
        # The top bit signs the feature, so collisions cancel out instead of piling up.
        slots = (hashes & 0x7FFFFFFF) % dim
        signs = np.where(hashes & 0x80000000, 1.0, -1.0)
        cells = np.repeat(np.arange(n, dtype=np.int64) * dim, lengths) + slots
        val = np.bincount(cells, weights=signs, minlength=n * dim).reshape(n, dim)
        val = val.astype(np.float32)
        with np.errstate(divide="ignore"):
            out = np.sign(val) * (1.0 + np.log(np.abs(val) + 1e-12).clip(min=0))
        out[lengths == 0] = 0.0
        for row in np.flatnonzero(lengths):
            # per row, as np.linalg.norm does it (a float32 dot): the same bits
            norm = np.sqrt(out[row].dot(out[row]))
            if norm:
                out[row] /= norm
        return out
