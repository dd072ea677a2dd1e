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
_CACHE_BIGRAMS = 2_000_000  # memoised word pairs per embedder (~200 MB at most)


class HashingEmbedder:
    # Embedding a query here is cheaper than looking it up in the store's cache.
    cache_queries = False

    def __init__(self, dim: int = 384) -> None:
        if dim < 16:
            raise ValueError("the hashing embedder needs at least 16 dimensions")
        self._dim = int(dim)
        self.model_id = "hash-ngram-v1"
        self._reset_words()

    @property
    def dim(self) -> int:
        return self._dim

    def _word_hashes(self, word: str) -> list[int]:
        """The hashes of a word's own features: the word and its character 3- and
        4-grams."""
        padded = f"<{word}>"
        feats = [f"w:{word}"]
        for n in (3, 4):
            feats += [f"c:{padded[i:i + n]}" for i in range(len(padded) - n + 1)]
        return [zlib.crc32(f.encode("utf-8")) for f in feats]

    def _hashes(self, text: str) -> list[int]:
        """Every feature hash of one text: word bigrams, then each word's own features
        (the definition; ``embed`` computes the same multiset for a whole batch)."""
        words = _words(text)
        hashes = [zlib.crc32(f"b:{a} {b}".encode()) for a, b in
                  zip(words, words[1:], strict=False)]
        for w in words:
            hashes += self._word_hashes(w)
        return hashes

    def _ids_of(self, words: list[str]) -> list[int]:
        """Word ids, registering new words and their feature hashes (memoised: words
        repeat across documents far more than they vary)."""
        ids = self._ids
        try:
            return list(map(ids.__getitem__, words))  # all known: the common case
        except KeyError:
            pass
        new = [w for w in dict.fromkeys(words) if w not in ids]
        if new:
            feats = [self._word_hashes(w) for w in new]
            for w in new:
                ids[w] = len(self._words)
                self._words.append(w)
            lengths = np.fromiter(map(len, feats), dtype=np.int64, count=len(feats))
            hashes = np.fromiter(itertools.chain.from_iterable(feats), dtype=np.uint32,
                                 count=int(lengths.sum()))
            first_word, first_feat = len(self._words) - len(new), self._n_feat
            self._feat_start = _room(self._feat_start, len(self._words))
            self._feat_len = _room(self._feat_len, len(self._words))
            self._feat_start[first_word:len(self._words)] = \
                first_feat + np.cumsum(lengths) - lengths
            self._feat_len[first_word:len(self._words)] = lengths
            self._n_feat += len(hashes)
            self._feat_slot = _room(self._feat_slot, self._n_feat)
            self._feat_sign = _room(self._feat_sign, self._n_feat)
            # The top bit signs a feature, so collisions cancel out instead of piling up.
            self._feat_slot[first_feat:self._n_feat] = (hashes & 0x7FFFFFFF) % self._dim
            self._feat_sign[first_feat:self._n_feat] = np.where(hashes & 0x80000000, 1.0,
                                                                -1.0)
        return [ids[w] for w in words]

    def _reset_words(self) -> None:
        self._ids: dict[str, int] = {}
        self._words: list[str] = []
        # every known word's features, in a row: the slot each hashes to, and its sign
        # (arrays with room to grow: the first ``_n_feat`` / ``len(_words)`` entries count)
        self._n_feat = 0
        self._feat_slot = np.empty(0, np.int64)
        self._feat_sign = np.empty(0, np.float64)
        self._feat_start = np.empty(0, np.int64)  # where each word's hashes start
        self._feat_len = np.empty(0, np.int64)
        self._bigrams: dict[int, int] = {}  # (word id, next word id) → hash

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        """One pass over the whole batch: words become ids, their memoised feature
        hashes are gathered for every occurrence at once, word pairs are hashed once per
        distinct pair, and everything is counted per (row, slot) by a single bincount.
        The same arithmetic, in the same float32 steps, as ``_hashes`` text by text
        (tests/test_embedders.py checks bit-identity against that)."""
        n, dim = len(texts), self._dim
        if len(self._ids) > _CACHE_WORDS or len(self._bigrams) > _CACHE_BIGRAMS:
            self._reset_words()  # between batches: ids stay valid within one
        per_text = [self._ids_of(_words(text or "")) for text in texts]
        words_per_text = np.fromiter(map(len, per_text), dtype=np.int64, count=n)
        occ = np.fromiter(itertools.chain.from_iterable(per_text), dtype=np.int64,
                          count=int(words_per_text.sum()))
        occ_row = np.repeat(np.arange(n, dtype=np.int64), words_per_text)
        # word pairs inside one text, each distinct pair hashed once
        same_text = occ_row[1:] == occ_row[:-1]
        keys = (occ[:-1][same_text] << 32) | occ[1:][same_text]
        uniq, inverse = np.unique(keys, return_inverse=True)
        memo, words = self._bigrams, self._words
        pair_hashes = np.empty(len(uniq), dtype=np.uint32)
        for i, key in enumerate(uniq.tolist()):
            h = memo.get(key)
            if h is None:
                h = zlib.crc32(f"b:{words[key >> 32]} {words[key & 0xFFFFFFFF]}".encode())
                if len(memo) < _CACHE_BIGRAMS:
                    memo[key] = h
            pair_hashes[i] = h
        pair_cells = occ_row[1:][same_text] * dim + (
            (pair_hashes[inverse] & 0x7FFFFFFF) % dim).astype(np.int64)
        pair_signs = np.where(pair_hashes[inverse] & 0x80000000, 1.0, -1.0)
        # each occurrence's own features, gathered from the memoised slots and signs
        counts = self._feat_len[occ]
        total = int(counts.sum())
        at = np.repeat(self._feat_start[occ] - (np.cumsum(counts) - counts), counts) \
            + np.arange(total, dtype=np.int64)
        word_cells = np.repeat(occ_row * dim, counts) + self._feat_slot[at]
        word_signs = self._feat_sign[at]
        # exact: sums of ±1 in float64, in any order
        val = np.bincount(np.concatenate([pair_cells, word_cells]),
                          weights=np.concatenate([pair_signs, word_signs]),
                          minlength=n * dim)
        val = val.reshape(n, dim).astype(np.float32)
        with np.errstate(divide="ignore"):
            out = np.sign(val) * (1.0 + np.log(np.abs(val) + 1e-12).clip(min=0))
        for row in np.flatnonzero(words_per_text):
            # per row, as np.linalg.norm does it (a float32 dot): the same bits
            norm = np.sqrt(out[row].dot(out[row]))
            if norm:
                out[row] /= norm
        return out


def _room(array: np.ndarray, size: int) -> np.ndarray:
    """``array`` with room for ``size`` entries: grown by doubling, so registering words
    batch after batch copies each entry a few times, not once per batch."""
    if size <= len(array):
        return array
    grown = np.empty(max(size, 2 * len(array), 1024), dtype=array.dtype)
    grown[:len(array)] = array
    return grown


def _words(text: str) -> list[str]:
    text = unicodedata.normalize("NFKC", text).lower().replace("'", "").replace("’", "")
    return _WORD.findall(text)
