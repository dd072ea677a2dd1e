"""The built-in embedder: hashed word and character n-grams. Deterministic, offline.

No model to download, so `afr ask` works on a fresh machine. It captures surface
similarity (shared words, shared spelling fragments — "Alzheimers" is close to
"Alzheimer's"), not meaning; use an OpenAI-compatible or sentence-transformers model for that.
"""

from __future__ import annotations

import itertools
import re
import threading
import unicodedata
import zlib
from collections.abc import Sequence

import numpy as np

_chain = itertools.chain.from_iterable
_WORD = re.compile(r"\w+", re.UNICODE)
_CACHE_WORDS = 500_000  # memoised words per embedder (a few hundred MB at most)
_CACHE_TOKENS = 1_000_000  # memoised whitespace-separated tokens per embedder


class HashingEmbedder:
    # Embedding a query here is cheaper than looking it up in the store's cache.
    cache_queries = False
    # Hashed character n-grams know no meaning: fused with BM25 they only break its ties.
    # Any larger weight lost to BM25 alone on real text (bench/real: dev hit@1 29.8 with
    # 0 and 0.002, 23.4 with 0.03, 10.6 with 1; docs/performance.md).
    dense_weight = 0.002
    # In the hybrid list, fused on min-max normalised scores, it decides where BM25 barely
    # separates two nodes and leaves BM25's clear gaps alone: 0.3 put the list above
    # both BM25 and vector search on WordNet dev and test and the three synthetic sets,
    # 0.1 below vector search on MAG, 1 below BM25 on WordNet (bench/real/EMBEDDERS.md).
    hybrid_weight = 0.3

    def __init__(self, dim: int = 384) -> None:
        if dim < 16:
            raise ValueError("the hashing embedder needs at least 16 dimensions")
        self._dim = int(dim)
        self.model_id = "hash-ngram-v1"
        # The word memo and its arrays grow as texts come in: one embed at a time (an
        # evaluation asks its questions from several threads).
        self._lock = threading.Lock()
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

    def _token_ids(self, token: str) -> list[int]:
        """The word ids of a token not seen before (``_TokenMemo`` asks): new words get
        an id now, and their feature hashes with the batch's other new words."""
        ids, known = [], self._ids
        for word in _words(token):
            i = known.get(word)
            if i is None:
                i = known[word] = len(self._words)
                self._words.append(word)
            ids.append(i)
        return ids

    def _register_new_words(self) -> None:
        """Feature slots, signs and pair CRCs of the words given ids since the last call,
        computed for all of them at once."""
        first_word, n_words = self._n_registered, len(self._words)
        if first_word == n_words:
            return
        new = self._words[first_word:]
        feats = [self._word_hashes(w) for w in new]
        lengths = np.fromiter(map(len, feats), dtype=np.int64, count=len(feats))
        hashes = np.fromiter(itertools.chain.from_iterable(feats), dtype=np.uint32,
                             count=int(lengths.sum()))
        first_feat = self._n_feat
        self._feat_start = _room(self._feat_start, n_words)
        self._feat_len = _room(self._feat_len, n_words)
        self._feat_start[first_word:n_words] = first_feat + np.cumsum(lengths) - lengths
        self._feat_len[first_word:n_words] = lengths
        self._n_feat += len(hashes)
        self._feat_slot = _room(self._feat_slot, self._n_feat)
        self._feat_sign = _room(self._feat_sign, self._n_feat)
        # The top bit signs a feature, so collisions cancel out instead of piling up.
        self._feat_slot[first_feat:self._n_feat] = (hashes & 0x7FFFFFFF) % self._dim
        self._feat_sign[first_feat:self._n_feat] = np.where(hashes & 0x80000000, 1.0, -1.0)
        # What a word pair "b:<first> <second>" needs of each word (see _pair_hashes)
        self._pair_head = _room(self._pair_head, n_words)
        self._pair_tail = _room(self._pair_tail, n_words)
        self._pair_shift = _room(self._pair_shift, n_words)
        for i, w in enumerate(new, start=first_word):
            encoded = w.encode()
            self._pair_head[i] = zlib.crc32(b"b:" + encoded + b" ")
            self._pair_tail[i] = zlib.crc32(encoded)
            self._pair_shift[i] = self._crc_shifts.row(len(encoded))
        self._n_registered = n_words

    def _texts_ids(self, texts: Sequence[str]) -> list[list[int]]:
        """The word ids of each text (``_words(text)`` as ids), looked up by
        whitespace-separated token: no word continues over whitespace, and normalising,
        lower-casing and apostrophe removal act on each token as on the whole text (no
        whitespace character composes with, or is a word character next to, another),
        while tokens repeat across documents far more than texts do."""
        known = self._tokens.__getitem__  # computes and keeps unknown tokens' ids
        out = [list(_chain(map(known, text.split()))) for text in texts]
        self._register_new_words()
        return out

    def _pair_hashes(self, first: np.ndarray, second: np.ndarray) -> np.ndarray:
        """crc32 of "b:<first> <second>" for arrays of word ids, without building the
        strings: CRC-32 is linear, so the hash of a concatenation is the head's CRC
        shifted over the tail's length, xor the tail's CRC (what zlib's crc32_combine
        computes)."""
        head = self._pair_head[first]
        # row of the (lengths, 4 bytes, 256) tables, flattened: table row, CRC byte, value
        base = self._pair_shift[second] * 1024
        tables = self._crc_shifts.tables.reshape(-1)
        out = self._pair_tail[second]
        for k in range(4):
            out ^= tables[base + (256 * k) + ((head >> np.uint32(8 * k)) & np.uint32(0xFF))]
        return out

    def _reset_words(self) -> None:
        self._ids: dict[str, int] = {}
        self._words: list[str] = []
        self._n_registered = 0  # words whose features are in the arrays below
        self._tokens = _TokenMemo(self)
        # every known word's features, in a row: the slot each hashes to, and its sign
        # (arrays with room to grow: the first ``_n_feat`` / ``len(_words)`` entries count)
        self._n_feat = 0
        self._feat_slot = np.empty(0, np.int64)
        self._feat_sign = np.empty(0, np.float64)
        self._feat_start = np.empty(0, np.int64)  # where each word's hashes start
        self._feat_len = np.empty(0, np.int64)
        # per word: crc32 of "b:<word> ", crc32 of "<word>", its length's shift table
        self._pair_head = np.empty(0, np.uint32)
        self._pair_tail = np.empty(0, np.uint32)
        self._pair_shift = np.empty(0, np.int64)
        self._crc_shifts = _CrcShifts()

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        with self._lock:
            return self._embed(texts)

    def _embed(self, texts: Sequence[str]) -> np.ndarray:
        """One pass over the whole batch: words become ids, their memoised feature
        hashes are gathered for every occurrence at once, word pairs are hashed from
        per-word CRCs, and everything is counted per (row, slot) by a single bincount.
        The same arithmetic, in the same float32 steps, as ``_hashes`` text by text
        (tests/test_embedders.py checks bit-identity against that)."""
        n, dim = len(texts), self._dim
        if len(self._ids) > _CACHE_WORDS or len(self._tokens) >= _CACHE_TOKENS:
            self._reset_words()  # between batches: ids stay valid within one
        per_text = self._texts_ids([text or "" for text in texts])
        words_per_text = np.fromiter(map(len, per_text), dtype=np.int64, count=n)
        occ = np.fromiter(itertools.chain.from_iterable(per_text), dtype=np.int64,
                          count=int(words_per_text.sum()))
        occ_row = np.repeat(np.arange(n, dtype=np.int64), words_per_text)
        # word pairs inside one text
        same_text = np.flatnonzero(occ_row[1:] == occ_row[:-1])
        pair_hashes = self._pair_hashes(occ[same_text], occ[same_text + 1])
        pair_cells = occ_row[same_text] * dim + (
            (pair_hashes & 0x7FFFFFFF) % dim).astype(np.int64)
        pair_signs = np.where(pair_hashes & 0x80000000, 1.0, -1.0)
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


class _TokenMemo(dict):
    """Token → word ids; an unknown token is split into words on first lookup."""

    def __init__(self, embedder: HashingEmbedder) -> None:
        super().__init__()
        self._embedder = embedder

    def __missing__(self, token: str) -> list[int]:
        ids = self._embedder._token_ids(token)
        if len(self) < _CACHE_TOKENS:
            self[token] = ids
        return ids


class _CrcShifts:
    """Per byte length L, the linear map that moves a CRC-32 over L more bytes, as four
    256-entry tables (one per byte of the CRC): ``crc32(a + b) == shift_L(crc32(a)) ^
    crc32(b)`` for any ``b`` of L bytes. Built from zlib itself for the lengths met."""

    def __init__(self) -> None:
        self.tables = np.zeros((0, 4, 256), dtype=np.uint32)
        self._rows: dict[int, int] = {}

    def row(self, length: int) -> int:
        row = self._rows.get(length)
        if row is None:
            zeros = bytes(length)
            base = zlib.crc32(zeros)
            table = np.array([[zlib.crc32(zeros, b << (8 * k)) ^ base for b in range(256)]
                              for k in range(4)], dtype=np.uint32)
            row = len(self._rows)
            self._rows[length] = row
            self.tables = np.concatenate([self.tables, table[None]])
        return row


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
