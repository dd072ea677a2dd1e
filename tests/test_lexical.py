"""The lexical index and SQL BM25: the same scores on DuckDB and PostgreSQL, equal to
bm25s (Lucene variant) with its own tokenisation given the same word pattern, stopwords
and Snowball stemmer, over the whole type and a candidate set; and the tokeniser each
index records, which queries follow and a different one is refused by."""

from __future__ import annotations

import math
from collections import Counter
from pathlib import Path

import numpy as np
import pytest
import Stemmer

from afr.embed import make_embedder
from afr.lexical import Tokenizer, TokenizerError, bm25, index_tokenizer, tokenize
from afr.lexical.index import build_lexical_index
from afr.lexical.tokens import STOPWORDS
from afr.load import load_skb_dir
from afr.pipeline.ask import Pipeline
from afr.resources import demo_skb_dir
from afr.settings import STEMMERS, BM25Settings, Settings
from afr.store.base import SCHEMA_VERSION, Store
from afr.synth import generate
from afr.vectors.documents import build_documents

bm25s = pytest.importorskip("bm25s")

UNSTEMMED = BM25Settings(stemmer="none")


def test_tokenize_casefolds_unicode_words_drops_stopwords_then_stems() -> None:
    assert tokenize("The Müller-Lyon GENE's role in ΑΒΓ_2, of 3.5", UNSTEMMED) == \
        ["müller", "lyon", "gene", "role", "αβγ_2", "3", "5"]
    # stems (the default): inflections meet; stopwords go before stemming ("does" is one,
    # its stem "doe" is not)
    assert tokenize("Cycling does cycles; the analyses") == ["cycl", "cycl", "analys"]
    assert tokenize("the cat", BM25Settings(stopwords=False, stemmer="none")) == ["the", "cat"]
    assert tokenize("les chevaux", BM25Settings(stemmer="french", stopwords=False)) == \
        ["le", "cheval"]
    assert tokenize(None) == []


def test_every_stemmer_the_settings_offer_is_pystemmers() -> None:
    assert set(STEMMERS) - {"none"} <= set(Stemmer.algorithms())
    for name in STEMMERS:
        Tokenizer(name, True).require()


def test_a_tokenizer_record_reads_back_and_describes_itself() -> None:
    for t in (Tokenizer("english", True), Tokenizer("none", False)):
        assert Tokenizer.from_record(t.record()) == t
    assert Tokenizer("english", True).describe() == "Snowball english stems, stopwords dropped"
    assert Tokenizer("none", False).describe() == "words unstemmed, stopwords kept"
    with pytest.raises(TokenizerError, match="afr index --rebuild"):
        Tokenizer.from_record("{not json")


def _reference(store: Store, node_type: str, params: BM25Settings):
    """bm25s over the type's documents, tokenised by bm25s itself with afr's word pattern,
    stopwords and stemmer (bm25s lowercases, afr case-folds: it is given the documents
    case-folded). Also each document's words as written, aligned with its stems."""
    ids = sorted(int(r[0]) for r in store.query("SELECT id, type FROM nodes")
                 if r[1] == node_type)
    docs = build_documents(store, ids, "doc")
    texts = [docs[i].casefold() for i in ids]
    stop = sorted(STOPWORDS) if params.stopwords else []
    stemmer = None if params.stemmer == "none" else Stemmer.Stemmer(params.stemmer)

    def split(stem):
        return bm25s.tokenize(texts, lower=True, token_pattern=r"(?u)\w+", stopwords=stop,
                              stemmer=stem, return_ids=False, show_progress=False)
    corpus, words = split(stemmer), split(None)
    ref = bm25s.BM25(k1=params.k1, b=params.b, method="lucene", dtype="float64")
    ref.index(corpus, show_progress=False)
    return ids, corpus, words, ref


def _compare(store: Store, params: BM25Settings, queries: int = 12) -> int:
    """Random questions made of a document's words (as written), and at times a word no
    document has or one whose term every document holds: afr's scores of the question's
    text against bm25s's of its terms."""
    rng = np.random.default_rng(3)
    counts = store.node_type_counts()
    checked = 0
    for node_type in sorted(counts, key=lambda t: -counts[t])[:3]:
        ids, corpus, words, ref = _reference(store, node_type, params)
        vocab = ref.vocab_dict
        df = Counter(t for doc in corpus for t in set(doc))
        common = df.most_common(1)[0][0]  # the type's name: in every document
        common_word = next(w for doc, ws in zip(corpus, words, strict=True)
                           for t, w in zip(doc, ws, strict=True) if t == common)
        for qi in range(queries):
            pick = int(rng.integers(len(corpus)))
            doc, raw = corpus[pick], words[pick]
            if not doc:
                continue
            at = rng.choice(len(doc), size=min(4, len(doc)), replace=False)
            asked, terms = [raw[i] for i in at], [doc[i] for i in at]
            if qi % 3 == 0:
                asked.append("zzzunknownterm")  # a term no document has adds nothing
            if qi % 2 == 0:
                asked.append(common_word)
                terms.append(common)
            # bm25s scores every term; min_idf is afr's rule: the reference leaves out
            # the terms below it (and counts a repeated term once, as afr does)
            n = len(corpus)
            known = [vocab[t] for t in dict.fromkeys(terms) if t in vocab
                     and math.log(1 + (n - df[t] + 0.5) / (df[t] + 0.5)) >= params.min_idf]
            want = ref.get_scores_from_ids(known)
            question = " ".join(asked).upper()  # afr case-folds the question too
            got = dict(bm25(store, question, params=params, types=[node_type]))
            for pos, node in enumerate(ids):
                assert math.isclose(got.get(node, 0.0), want[pos], abs_tol=1e-6), \
                    (node_type, asked, node)
            # restricted to a candidate set: same statistics, only those nodes scored
            subset = ids[::3]
            part = dict(bm25(store, question, params=params, types=[node_type], ids=subset))
            assert set(part) <= set(subset)
            for node in subset:
                assert math.isclose(part.get(node, 0.0), got.get(node, 0.0), abs_tol=1e-12)
            top = bm25(store, question, params=params, types=[node_type], k=5)
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
    # words as written, stopwords kept, every term scored: bm25s's own BM25 throughout
    plain = BM25Settings(stemmer="none", stopwords=False, min_idf=0)
    build_lexical_index(store, params=plain, rebuild=True, progress=False)
    assert _compare(store, plain) > 10


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
    scores, terms = [], []
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
        terms.append(store.query("SELECT type, term, df FROM lex_df ORDER BY type, term"))
    assert terms[0] == terms[1] and ("module", "except", 1) not in terms[0]
    assert any(t == "except" for _, t, _ in terms[0])  # stems: "exception(s)" → "except"
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
    store.delete_meta("skb_lexical_version")  # as old: no postings file of its index
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


def test_the_index_records_its_tokeniser_and_another_is_refused(store: Store) -> None:
    load_skb_dir(store, demo_skb_dir(), progress=False)
    build_lexical_index(store, params=UNSTEMMED, progress=False)
    assert index_tokenizer(store) == Tokenizer("none", True)
    unstemmed = bm25(store, "exceptions raised", params=UNSTEMMED, k=10)
    assert unstemmed
    postings = store.query("SELECT count(*) FROM lex_postings")[0][0]
    # queries under other settings: refused, at the session's start and in bm25 itself
    with pytest.raises(TokenizerError, match=r"built with words unstemmed, stopwords "
                       r"dropped; the settings ask for Snowball english stems.*afr index "
                       r"--rebuild.*stemmer = \"none\""):
        bm25(store, "exceptions raised", k=10)
    with pytest.raises(TokenizerError, match="afr index --rebuild"):
        Pipeline(store, Settings(), embedder=make_embedder("hash"))
    # so is topping it up: the postings would mix words and stems
    with pytest.raises(TokenizerError, match="afr index --rebuild"):
        build_lexical_index(store, progress=False)
    assert store.query("SELECT count(*) FROM lex_postings")[0][0] == postings
    assert bm25(store, "exceptions raised", params=UNSTEMMED, k=10) == unstemmed
    # rebuilt with the default (stemmed): the record and the terms follow
    report = build_lexical_index(store, rebuild=True, progress=False)
    assert report.rebuilt and report.indexed == report.total == report.nodes
    assert index_tokenizer(store) == Tokenizer("english", True)
    stemmed = bm25(store, "exceptions raised", k=10)
    assert stemmed and stemmed != unstemmed
    assert store.query("SELECT count(*) FROM lex_df WHERE term = 'exceptions'")[0][0] == 0
    with pytest.raises(TokenizerError, match="afr index --rebuild"):
        bm25(store, "exceptions raised", params=UNSTEMMED)
    # an index an older afr built (no record) is refused until rebuilt
    store.delete_meta("lexical_tokenizer")
    with pytest.raises(TokenizerError, match="older afr.*afr index --rebuild"):
        bm25(store, "exceptions raised", params=UNSTEMMED)
    with pytest.raises(TokenizerError, match="older afr"):
        build_lexical_index(store, progress=False)
    build_lexical_index(store, rebuild=True, progress=False)
    assert bm25(store, "exceptions raised", k=10) == stemmed


def test_a_new_skb_records_the_tokeniser_of_its_first_build(store: Store,
                                                            tmp_path: Path) -> None:
    load_skb_dir(store, demo_skb_dir(), progress=False)
    build_lexical_index(store, params=UNSTEMMED, progress=False)
    out = tmp_path / "skb"
    generate(out, like="mag", nodes=300, edges=None, questions=0, seed=2, noise=0.0)
    load_skb_dir(store, out, replace=True, progress=False)  # the index goes with the SKB
    build_lexical_index(store, progress=False)
    assert index_tokenizer(store) == Tokenizer("english", True)


def test_the_index_batches_as_wide_as_the_store_asks(duck_store: Store) -> None:
    """Each batch of the lexical index commits once; a store whose every statement is a
    job (Spark) asks for wide batches through ``document_batch``."""
    from afr.store.spark_store import SparkStore

    load_skb_dir(duck_store, demo_skb_dir(), progress=False)
    nodes = int(duck_store.run("lexical/counts.sql")[0].nodes)
    duck_store.document_batch = 1000
    begun = duck_store.transactions
    build_lexical_index(duck_store, progress=False)
    narrow = duck_store.transactions - begun
    duck_store.document_batch = nodes  # one batch
    begun = duck_store.transactions
    build_lexical_index(duck_store, rebuild=True, progress=False)
    wide = duck_store.transactions - begun
    # the claim, each batch, the statistics (and the rebuild's clearing, in place of the
    # first claim's record)
    assert narrow - wide == math.ceil(nodes / 1000) - 1
    assert SparkStore.document_batch > Store.document_batch
