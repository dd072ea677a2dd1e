"""BM25 from the postings file beside a DuckDB store gives the SQL's rows exactly, and the
file follows the index: written by every completed build, never read once the index
changed, gone with the SKB."""

from __future__ import annotations

from pathlib import Path

import numpy as np
from skbutil import write_skb

from afr.lexical import Tokenizer, bm25, build_lexical_index, lexical_state, map_postings
from afr.lexical.bm25 import _bm25_sql
from afr.lexical.index import _index_batch
from afr.lexical.memory import VERSION_KEY, memory_postings, postings_path
from afr.load import load_skb_dir
from afr.resources import demo_skb_dir
from afr.settings import BM25Settings
from afr.store import DuckDBStore, sidecar

TYPES = ["paper", "author", "field"]
# terms beyond ASCII: the file orders and searches terms by their UTF-8 bytes
UNICODE_WORDS = ["café", "naïve", "ωμέγα", "straße", "日本語", "zürich", "ǆungla", "a"]


def corpus(tmp_path: Path, nodes: int, seed: int) -> Path:
    """Documents of Zipf-distributed words (a few in nearly every document, many rare)
    and of varied lengths, over three types."""
    rng = np.random.default_rng(seed)
    vocab = [f"word{i}" for i in range(300)] + UNICODE_WORDS
    weights = 1.0 / np.arange(1, 301)
    weights /= weights.sum()
    weights = np.r_[weights[:300] * 0.9, np.full(len(UNICODE_WORDS), 0.1 / len(UNICODE_WORDS))]
    rows = [{"id": i, "type": TYPES[int(rng.integers(3))], "name": f"node {i}",
             "text": " ".join(rng.choice(vocab, size=int(rng.integers(1, 40)), p=weights))}
            for i in range(nodes)]
    schema = {"name": "lexmem", "directed": True,
              "node_types": {t: {} for t in TYPES}, "edge_types": {}}
    return write_skb(tmp_path / f"skb{seed}", schema, rows, [])


def rounded(rows) -> list[tuple[int, float]]:
    return sorted(((int(n), round(float(s), 9)) for n, s in rows), key=lambda x: (-x[1], x[0]))


def test_mapped_postings_score_as_the_sql_does(duck_store: DuckDBStore,
                                              tmp_path: Path) -> None:
    load_skb_dir(duck_store, corpus(tmp_path, 600, seed=1), progress=False)
    build_lexical_index(duck_store, progress=False)
    mapped = memory_postings(duck_store)
    assert mapped is not None and postings_path(duck_store).is_file()
    rng = np.random.default_rng(7)
    tokenizer = Tokenizer.of(BM25Settings())
    compared = 0
    for _ in range(150):
        words = [f"word{int(i)}" for i in rng.integers(0, 320, size=int(rng.integers(1, 7)))]
        if rng.random() < 0.5:  # a word (nearly) every document holds: min_idf's case
            words.append(f"word{int(rng.integers(0, 3))}")
        if rng.random() < 0.5:
            words.append(str(rng.choice(UNICODE_WORDS)))
        terms = tokenizer.tokens(" ".join(words))
        params = BM25Settings(k1=float(rng.choice([0.9, 1.2, 2.0])),
                              b=float(rng.choice([0.0, 0.75, 1.0])),
                              min_idf=float(rng.choice([0.0, 0.1, 0.5])))
        types = [None, ["paper"], ["author", "field"], ["paper", "nosuchtype"]][
            int(rng.integers(4))]
        ids = None if rng.random() < 0.5 else sorted(set(rng.integers(0, 650, size=80).tolist()))
        k = [None, 0, 1, 5, 50][int(rng.integers(5))]
        also = None if rng.random() < 0.5 else rng.integers(0, 650, size=6).tolist()
        want = rounded(_bm25_sql(duck_store, list(dict.fromkeys(terms)), params, types,
                                 ids, k, also))
        got = rounded(mapped.bm25(list(dict.fromkeys(terms)), params, types=types, ids=ids,
                                  k=k, also=also))
        assert got == want, (terms, params, types, k, also)
        compared += bool(want)
    assert compared > 60


def test_the_postings_file_follows_the_index(duck_store: DuckDBStore,
                                            tmp_path: Path) -> None:
    load_skb_dir(duck_store, demo_skb_dir(), progress=False)
    ids = [int(r[0]) for r in duck_store.query("SELECT id FROM nodes ORDER BY id")]
    middle = ids[len(ids) // 2]
    duck_store.execute(f"CREATE TABLE hold AS SELECT * FROM nodes WHERE id > {middle}")
    duck_store.execute(f"DELETE FROM nodes WHERE id > {middle}")
    build_lexical_index(duck_store, progress=False)
    first = duck_store.get_meta(VERSION_KEY)
    assert first and memory_postings(duck_store) is not None
    half = bm25(duck_store, "json decode error", k=20)
    # the other half arrives and is indexed: a new version, a new file, its nodes found
    duck_store.execute("INSERT INTO nodes SELECT * FROM hold")
    build_lexical_index(duck_store, progress=False)
    assert duck_store.get_meta(VERSION_KEY) not in (None, first)
    whole = bm25(duck_store, "json decode error", k=20)
    assert memory_postings(duck_store) is not None and whole != half
    assert any(n > middle for n, _ in whole)
    assert rounded(_bm25_sql(duck_store, ["json", "decod", "error"], BM25Settings(), None,
                             None, 20, None)) == whole
    # a batch written, the build interrupted before its statistics: no version, no file
    # read (the SQL's scores), until a build completes
    duck_store.execute(f"DELETE FROM lex_docs WHERE node_id > {middle}")
    duck_store.execute(f"DELETE FROM lex_postings WHERE node_id > {middle}")
    _index_batch(duck_store, [i for i in ids if i > middle][:5], Tokenizer.of(BM25Settings()))
    assert duck_store.get_meta(VERSION_KEY) is None and memory_postings(duck_store) is None
    build_lexical_index(duck_store, progress=False)
    assert duck_store.get_meta(VERSION_KEY) is not None
    assert memory_postings(duck_store) is not None
    assert bm25(duck_store, "json decode error", k=20) == whole
    # a reloaded SKB takes the version with it: its BM25 is the SQL's until indexed again
    assert lexical_state(duck_store).postings_file == str(postings_path(duck_store))
    load_skb_dir(duck_store, corpus(tmp_path, 50, seed=2), replace=True, progress=False)
    assert duck_store.get_meta(VERSION_KEY) is None and memory_postings(duck_store) is None
    assert lexical_state(duck_store).postings_file is None  # 'afr info': BM25 in SQL
    build_lexical_index(duck_store, progress=False)
    assert memory_postings(duck_store) is not None


def test_a_stale_or_damaged_file_is_never_read(duck_store: DuckDBStore,
                                              tmp_path: Path) -> None:
    load_skb_dir(duck_store, corpus(tmp_path, 200, seed=3), progress=False)
    build_lexical_index(duck_store, progress=False)
    want = bm25(duck_store, "word1 word7 word40", k=10)
    path = postings_path(duck_store)
    # another version recorded (another process rebuilt the index): not this file
    duck_store.set_meta(VERSION_KEY, "someone-elses")
    assert memory_postings(duck_store) is None
    assert bm25(duck_store, "word1 word7 word40", k=10) == want  # the SQL's
    build_lexical_index(duck_store, progress=False)  # written anew for that version
    assert memory_postings(duck_store) is not None
    # a file cut short (a full disk) is not read either
    data = path.read_bytes()
    path.write_bytes(data[:-8])
    fresh = DuckDBStore(duck_store.path)
    try:
        assert memory_postings(fresh) is None
        assert bm25(fresh, "word1 word7 word40", k=10) == want
    finally:
        fresh.close()


def test_an_index_changed_by_an_older_afr_is_not_read_from_the_file(
        duck_store: DuckDBStore, tmp_path: Path) -> None:
    """An afr from before postings files rewrites the index without dropping the file's
    version; the counts checked at opening (postings, documents and length per type) tell
    the file is not that index's, and BM25 stays in SQL."""
    load_skb_dir(duck_store, corpus(tmp_path, 200, seed=4), progress=False)
    build_lexical_index(duck_store, progress=False)
    before = bm25(duck_store, "word1 word7 word40", k=10)
    top = before[0][0]
    # what such an afr's re-index of node `top` (now without text) leaves: no postings,
    # no document, its type's statistics without it; the version untouched
    (node_type, length), = duck_store.query(
        "SELECT type, len FROM lex_docs WHERE node_id = $n", {"n": top})
    duck_store.execute("DELETE FROM lex_postings WHERE node_id = $n", {"n": top})
    duck_store.execute("DELETE FROM lex_docs WHERE node_id = $n", {"n": top})
    duck_store.execute("UPDATE lex_stats SET n_docs = n_docs - 1, total_len = total_len - $l "
                       "WHERE type = $t", {"l": length, "t": node_type})
    fresh = DuckDBStore(duck_store.path)
    try:
        assert fresh.meta_fact(VERSION_KEY) == duck_store.meta_fact(VERSION_KEY)
        assert memory_postings(fresh) is None
        after = bm25(fresh, "word1 word7 word40", k=10)
        assert top not in [n for n, _ in after]  # the SQL's rows: the file still has it
        # a node re-indexed with other words of the same total length: only the number
        # of postings tells
        build_lexical_index(fresh, progress=False)
        assert memory_postings(fresh) is not None
        fresh.execute("DELETE FROM lex_postings WHERE node_id = $n AND term = "
                      "(SELECT min(term) FROM lex_postings WHERE node_id = $n)",
                      {"n": before[1][0]})
    finally:
        fresh.close()
    again = DuckDBStore(duck_store.path)
    try:
        assert memory_postings(again) is None
    finally:
        again.close()


def test_an_index_older_than_postings_files_gets_one(duck_store: DuckDBStore,
                                                    tmp_path: Path) -> None:
    """An index built before afr wrote postings files (no version, no file) gets both
    from ``map_postings`` (which ``afr eval`` calls), unless its build is unfinished."""
    load_skb_dir(duck_store, corpus(tmp_path, 200, seed=5), progress=False)
    build_lexical_index(duck_store, progress=False)
    want = bm25(duck_store, "word2 word9 café", k=10)
    duck_store.delete_meta(VERSION_KEY)
    postings_path(duck_store).unlink()
    assert memory_postings(duck_store) is None
    duck_store.set_meta("lexical_statistics_stale", "true")  # a build that stopped
    assert not map_postings(duck_store) and not postings_path(duck_store).exists()
    duck_store.set_meta("lexical_statistics_stale", "false")
    assert map_postings(duck_store) and memory_postings(duck_store) is not None
    assert bm25(duck_store, "word2 word9 café", k=10) == want


def test_a_failed_write_leaves_the_sql_and_no_file(duck_store: DuckDBStore, tmp_path: Path,
                                                   monkeypatch) -> None:
    load_skb_dir(duck_store, corpus(tmp_path, 100, seed=6), progress=False)
    folder = duck_store.sidecar_dir()

    def full_disk(fd: int) -> None:
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(sidecar.os, "fsync", full_disk)
    build_lexical_index(duck_store, progress=False)  # the index is built all the same
    assert memory_postings(duck_store) is None and not folder.exists()
    want = bm25(duck_store, "word4 word11", k=10)
    assert want  # from SQL
    monkeypatch.undo()
    assert map_postings(duck_store) and memory_postings(duck_store) is not None
    assert bm25(duck_store, "word4 word11", k=10) == want
    assert [f.name for f in folder.iterdir()] == ["lexical.afrlex"]


def test_the_file_is_checked_without_holding_the_stores_runtime_lock(
        duck_store: DuckDBStore, tmp_path: Path, monkeypatch) -> None:
    """Opening reads the store (the counts checked against the file's); in a batched
    Spark eval such a read waits for the batch's other questions, which must not wait on
    the runtime's lock meanwhile (they did, for a whole gather window)."""
    from afr.lexical import memory

    load_skb_dir(duck_store, corpus(tmp_path, 60, seed=9), progress=False)
    build_lexical_index(duck_store, progress=False)
    check, held = memory._matches_index, []

    def spy(store, postings):
        held.append(store.runtime.lock.locked())
        return check(store, postings)

    monkeypatch.setattr(memory, "_matches_index", spy)
    fresh = DuckDBStore(duck_store.path)
    try:
        assert memory_postings(fresh) is not None and memory_postings(fresh) is not None
    finally:
        fresh.close()
    assert held == [False]  # checked once per store object and version, unlocked
