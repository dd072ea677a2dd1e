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


class HashingEmbedder:
    def __init__(self, dim: int = 384) -> None:
        if dim < 16:
            raise ValueError("the hashing embedder needs at least 16 dimensions")
        self._dim = int(dim)
        self.model_id = "hash-ngram-v1"

    @property
    def dim(self) -> int:
        return self._dim

    def _features(self, text: str) -> list[str]:
        text = unicodedata.normalize("NFKC", text).lower().replace("'", "").replace("’", "")
        words = _WORD.findall(text)
        feats = [f"w:{w}" for w in words]
        feats += [f"b:{a} {b}" for a, b in zip(words, words[1:], strict=False)]
        for w in words:
            padded = f"<{w}>"
            for n in (3, 4):
                feats += [f"c:{padded[i:i + n]}" for i in range(len(padded) - n + 1)]
        return feats

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        out = np.zeros((len(texts), self._dim), dtype=np.float32)
        for row, text in enumerate(texts):
            counts: dict[int, float] = {}
            for feat in self._features(text or ""):
                h = zlib.crc32(feat.encode("utf-8"))
                # The top bit signs the feature, so collisions cancel out instead of piling up.
                slot = (h & 0x7FFFFFFF) % self._dim
                sign = 1.0 if h & 0x80000000 else -1.0
                counts[slot] = counts.get(slot, 0.0) + sign
            if counts:
                idx = np.fromiter(counts.keys(), dtype=np.int64)
                val = np.fromiter(counts.values(), dtype=np.float32)
                out[row, idx] = np.sign(val) * (1.0 + np.log(np.abs(val) + 1e-12).clip(min=0))
                norm = np.linalg.norm(out[row])
                if norm:
                    out[row] /= norm
        return out
