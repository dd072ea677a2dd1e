"""The lexical index and SQL BM25: the same scores on DuckDB and PostgreSQL, equal to
bm25s (Lucene variant) fed the same tokens, over the whole type and a candidate set."""

from __future__ import annotations

import math
from collections import Counter
from pathlib import Path

import numpy as np
import pytest

from afr.lexical import bm25, tokenize
from afr.lexical.index import build_lexical_index
from afr.load import load_skb_dir
from afr.resources import demo_skb_dir
from afr.settings import BM25Settings
from afr.store.base import SCHEMA_VERSION, Store
from afr.synth import generate
from afr.vectors.documents import build_documents

bm25s = pytest.importorskip("bm25s")


def test_tokenize_lowercases_unicode_words_and_drops_stopwords() -> None:
    assert tokenize("The Müller-Lyon GENE's role in ΑΒΓ_2, of 3.5") == \
        ["müller", "lyon", "gene", "role", "αβγ_2", "3", "5"]
    assert tokenize("the cat", stopwords=False) == ["the", "cat"]
    assert tokenize(None) == []


def _reference(store: Store, node_type: str, params: BM25Settings):
    ids = sorted(int(r[0]) for r in store.query("SELECT id, type FROM nodes")
                 if r[1] == node_type)
    docs = build_documents(store, ids, "doc")
    corpus = [tokenize(docs[i], stopwords=params.stopwords) for i in ids]
    ref = bm25s.BM25(k1=params.k1, b=params.b, method="lucene", dtype="float64")
    ref.index(corpus, show_progress=False)
    return ids, corpus, ref


def _compare(store: Store, params: BM25Settings, queries: int = 12) -> int:
    rng = np.random.default_rng(3)
    counts = store.node_type_counts()
    checked = 0
    for node_type in sorted(counts, key=lambda t: -counts[t])[:3]:
        ids, corpus, ref = _reference(store, node_type, params)
        vocab = ref.vocab_dict
        df = Counter(t for doc in corpus for t in set(doc))
        common = df.most_common(1)[0][0]  # the type's name: in every document
        for qi in range(queries):
            doc = corpus[int(rng.integers(len(corpus)))]
            if not doc:
                continue
            terms = list(dict.fromkeys(rng.choice(doc, size=min(4, len(doc)), replace=False)))
            if qi % 3 == 0:
                terms.append("zzzunknownterm")  # a term no document has adds nothing
            if qi % 2 == 0 and common not in terms:
                terms.append(common)
            # bm25s scores every term; with min_idf the reference leaves out the rare ones
            n = len(corpus)
            known = [vocab[t] for t in terms if t in vocab
                     and math.log(1 + (n - df[t] + 0.5) / (df[t] + 0.5)) >= params.min_idf]
            want = ref.get_scores_from_ids(known)
            got = dict(bm25(store, terms, params=params, types=[node_type]))
            for pos, node in enumerate(ids):
                assert math.isclose(got.get(node, 0.0), want[pos], abs_tol=1e-6), \
                    (node_type, terms, node)
            # restricted to a candidate set: same statistics, only those nodes scored
            subset = ids[::3]
            part = dict(bm25(store, terms, params=params, types=[node_type], ids=subset))
            assert set(part) <= set(subset)
            for node in subset:
                assert math.isclose(part.get(node, 0.0), got.get(node, 0.0), abs_tol=1e-12)
            top = bm25(store, terms, params=params, types=[node_type], k=5)
            assert [s for _, s in top] == sorted(got.values(), reverse=True)[:5]
            checked += 1
    return checked


def test_bm25_equals_bm25s_on_the_demo(store: Store) -> None:
    load_skb_dir(store, demo_skb_dir(), progress=False)
    report = build_lexical_index(store, progress=False)
    assert report.indexed == report.total == report.nodes > 0
    assert _compare(store, BM25Settings()) > 10
    again = build_lexical_index(store, progress=False)
    assert again.indexed == 0 and again.postings == report.postings


def test_bm25_equals_bm25s_on_a_synthetic_skb(store: Store, tmp_path: Path) -> None:
    out = tmp_path / "skb"
    generate(out, like="amazon", nodes=400, edges=None, questions=0, seed=5, noise=0.0)
    load_skb_dir(store, out, progress=False)
    build_lexical_index(store, progress=False)
    assert _compare(store, BM25Settings(k1=1.5, b=0.6)) > 10


def test_min_idf_leaves_out_the_terms_most_documents_hold(store: Store,
                                                         tmp_path: Path) -> None:
    out = tmp_path / "skb"
    generate(out, like="prime", nodes=400, edges=None, questions=0, seed=5, noise=0.0)
    load_skb_dir(store, out, progress=False)
    build_lexical_index(store, progress=False)
    assert _compare(store, BM25Settings(min_idf=0.3)) > 10
    # a type's own name is in each of its documents: alone it scores nothing
    node_type = max(store.node_type_counts().items(), key=lambda kv: kv[1])[0]
    name = tokenize(node_type)
    every = BM25Settings(min_idf=0)
    assert len(bm25(store, name, params=every, types=[node_type])) \
        == store.node_type_counts()[node_type]
    assert bm25(store, name, types=[node_type]) == []  # the default, min_idf 0.1


def test_index_is_incremental_and_scores_match_across_stores(
        duck_store: Store, pg_store: Store) -> None:
    scores = []
    for store in (duck_store, pg_store):
        load_skb_dir(store, demo_skb_dir(), progress=False)
        # half the nodes first, as if a previous run was interrupted
        ids = [int(r[0]) for r in store.query("SELECT id FROM nodes ORDER BY id")]
        middle = int(ids[len(ids) // 2])
        store.execute(f"CREATE TABLE hold AS SELECT * FROM nodes WHERE id > {middle}")
        store.execute(f"DELETE FROM nodes WHERE id > {middle}")
        first = build_lexical_index(store, progress=False)
        store.execute("INSERT INTO nodes SELECT * FROM hold")
        second = build_lexical_index(store, progress=False)
        assert first.indexed + second.indexed == second.total == len(ids)
        scores.append(bm25(store, "python exception module defined", k=50))
    (duck, pg) = scores
    assert [n for n, _ in duck] == [n for n, _ in pg]
    assert all(math.isclose(a, b, abs_tol=1e-9) for (_, a), (_, b) in zip(duck, pg, strict=True))


def test_an_older_stores_postings_are_upgraded_with_the_same_scores(store: Store) -> None:
    """Schema 9 moved each document's type and length into its postings; a store indexed
    before (schema 8: postings of term, node and tf alone) is upgraded in place when afr
    opens it for writing, and scores exactly as before."""
    load_skb_dir(store, demo_skb_dir(), progress=False)
    build_lexical_index(store, progress=False)
    queries = ["python exception module defined", "json decode error value"]
    before = [bm25(store, q, k=30) for q in queries]
    typed = [bm25(store, q, types=["function"], k=10) for q in queries]
    assert all(before) and all(typed)
    # back to schema 8's layout
    store.execute("DROP INDEX IF EXISTS lex_postings_term")
    store.execute("ALTER TABLE lex_postings DROP COLUMN type")
    store.execute("ALTER TABLE lex_postings DROP COLUMN len")
    store.execute("CREATE INDEX lex_postings_term ON lex_postings (term)")
    store.set_meta("schema_version", "8")
    store.forget_facts()
    store.require_initialised()  # what a writing command does first
    assert store.schema_version() == SCHEMA_VERSION
    assert store.query("SELECT count(*) FROM lex_postings WHERE type IS NULL "
                       "OR len IS NULL")[0][0] == 0
    assert [bm25(store, q, k=30) for q in queries] == before
    assert [bm25(store, q, types=["function"], k=10) for q in queries] == typed
    # the next `afr index` indexes nothing new but puts DuckDB's postings in term order
    assert build_lexical_index(store, progress=False).indexed == 0
    assert [bm25(store, q, k=30) for q in queries] == before
    if store.dialect.name == "duckdb":
        out_of_order = store.query(
            "SELECT count(*) FROM (SELECT term < lag(term) OVER (ORDER BY rowid) AS back "
            "FROM lex_postings) WHERE back")[0][0]
        assert out_of_order == 0
