"""Fusion on hand-computed cases, and the hybrid ranking / plain methods on both stores."""

from __future__ import annotations

import math

import pytest
from settings_util import settings_of

from afr.cypher.model import Condition, is_text_condition
from afr.embed import make_embedder
from afr.lexical.index import build_lexical_index
from afr.load import load_skb_dir
from afr.pipeline.ask import Pipeline
from afr.resources import demo_skb_dir
from afr.retrieval.fusion import fuse
from afr.store.base import Store
from afr.vectors import embed_store


def test_rrf_by_hand() -> None:
    a = [(1, 0.9), (2, 0.5), (3, 0.1)]
    b = [(3, 7.0), (1, 2.0)]
    got = dict(fuse([(a, 1.0), (b, 2.0)], method="rrf", rrf_k=60))
    assert math.isclose(got[1], 1 / 61 + 2 / 62)
    assert math.isclose(got[2], 1 / 62)
    assert math.isclose(got[3], 1 / 63 + 2 / 61)
    assert [n for n, _ in fuse([(a, 1.0), (b, 2.0)])] == [3, 1, 2]


def test_rrf_ties_share_a_rank() -> None:
    levels = [(7, -1.0), (3, -1.0), (9, -1.0), (4, -2.0)]
    got = dict(fuse([(levels, 1.0)], ties=True))
    assert got == {7: 1 / 61, 3: 1 / 61, 9: 1 / 61, 4: 1 / 64}
    assert [n for n, _ in fuse([(levels, 1.0)], ties=True)] == [3, 7, 9, 4]  # then by id
    # without ties, a list's order is its ranking
    assert dict(fuse([(levels, 1.0)])) == {7: 1 / 61, 3: 1 / 62, 9: 1 / 63, 4: 1 / 64}


def test_linear_by_hand_and_pool() -> None:
    a = [(1, 0.9), (2, 0.5), (3, 0.1)]
    b = [(3, 7.0), (1, 2.0)]
    got = dict(fuse([(a, 1.0), (b, 0.5)], method="linear"))
    assert math.isclose(got[1], 1.0 + 0.0)
    assert math.isclose(got[2], 0.5)
    assert math.isclose(got[3], 0.0 + 0.5)
    assert fuse([(a, 1.0), (b, 0.5)], method="linear")[0] == (1, 1.0)
    assert [n for n, _ in fuse([(a, 1.0), (b, 1.0)], only={2, 3})] == [3, 2]
    assert dict(fuse([([(5, 3.0), (6, 3.0)], 1.0)], method="linear")) == {5: 1.0, 6: 1.0}
    with pytest.raises(ValueError):
        fuse([(a, 1.0)], method="max")


def test_text_conditions_are_told_from_attribute_conditions() -> None:
    conds = [Condition("text", "CONTAINS", "zlib"), Condition("year", ">", 3),
             Condition("details.description", "=~", "(?i)comp.*"),
             Condition("text", "=", "zlib"), Condition("abstract", "CONTAINS", 3)]
    assert [c.attribute for c in conds if is_text_condition(c)] == [
        "text", "details.description"]


@pytest.fixture
def demo(store: Store) -> Store:
    load_skb_dir(store, demo_skb_dir(), progress=False)
    embed_store(store, make_embedder("hash:64"), progress=False)
    build_lexical_index(store, progress=False)
    return store


QUESTION = "Which exceptions defined in the aifc module inherit from Exception?"
CYPHER = ('MATCH (c1:module {name: "aifc"})-[:module_defines_exception]->(y:exception) '
          'WHERE y.text CONTAINS "aifc" RETURN y')


def test_methods_and_hybrid_ranking_on_both_stores(demo: Store) -> None:
    lists = {}
    for method in ("vss", "bm25", "hybrid"):
        pipe = Pipeline(demo, settings_of(ask__method=method, llm__offline=True, rerank__method="none"))
        result = pipe.ask(QUESTION, target_type="exception")
        assert len(result.answers) == 20 and {a.type for a in result.answers} == {"exception"}
        lists[method] = [a.ext_id for a in result.answers]
        # every method logs its candidates and scores
        rows = demo.run("runlog/answer_details.sql", {"ids": [a.node_id for a in
                                                               result.answers]})
        assert len(rows) == 20
    assert lists["bm25"][0] == "exception:aifc.Error"
    pipe = Pipeline(demo, settings_of(af__ranking="hybrid", llm__offline=True, rerank__method="none"))
    result = pipe.ask(QUESTION, cypher=CYPHER, target_type="exception")
    assert result.answers[0].ext_id == "exception:aifc.Error"
    # the text condition restricts the target in the grounding itself
    assert any("applied in the grounding" in n for n in result.symbols["y"].notes)
    assert result.symbols["y"].texts_applied
    assert all("scores" in a.provenance for a in result.answers)
    # a text condition no grounded answer meets is a ranking signal, said so
    miss = ('MATCH (c1:module {name: "aifc"})-[:module_defines_exception]->(y:exception) '
            'WHERE y.text CONTAINS "qqq never" RETURN y')
    result = pipe.ask(QUESTION, cypher=miss, target_type="exception")
    assert any("used as a ranking signal" in w for w in result.warnings)
    assert result.answers[0].ext_id == "exception:aifc.Error"


def test_keep_vss_keeps_the_vector_search_top(demo: Store) -> None:
    """[ranking] keep_vss: however many grounded answers the fusion prefers, the vector
    search's first N stay in the list."""
    from afr.methods.af.hybrid_ranking import hybrid_strands
    from afr.retrieval.lists import vss_strand
    from afr.settings import RankingSettings
    from afr.vectors.search import query_vector

    pipe = Pipeline(demo, settings_of(llm__offline=True, rerank__method="none"))
    qvec = query_vector(demo, pipe.session.embedder, QUESTION)
    vss_top = [n for n, _ in vss_strand(demo, qvec, ["exception"], 5)]
    # 60 grounded exceptions, none of them the vector search's top 5, all at level 1
    others = [int(r[0]) for r in demo.query(
        "SELECT id FROM nodes WHERE type = 'exception' ORDER BY id LIMIT 80")
        if int(r[0]) not in vss_top][:60]
    grounded = [(n, 1) for n in others]
    for keep in (0, 5):
        strands = hybrid_strands(demo, qvec, QUESTION, grounded, ["exception"], 20,
                                 weights=RankingSettings(graph=20.0, keep_vss=keep),
                                 keep_graph=13)
        final = [c.node_id for c in strands.final]
        assert len(final) == 20
        kept = [n for n in vss_top if n in final]
        if keep:
            assert kept == vss_top
        else:
            assert len(kept) < 5  # the trusted graph strand crowds them out


def test_keep_bm25_keeps_bm25s_first_when_the_graph_disagrees(demo: Store) -> None:
    """[ranking] keep_bm25: when none of the grounded answers is among BM25's first k (a
    wrong relation or label in the Cypher grounds other nodes), BM25's first N stay in
    the list however strongly the graph is trusted; when they share one, the fusion
    decides."""
    from afr.lexical import bm25
    from afr.methods.af.hybrid_ranking import hybrid_strands
    from afr.settings import RankingSettings
    from afr.vectors.search import query_vector

    pipe = Pipeline(demo, settings_of(llm__offline=True, rerank__method="none"))
    qvec = query_vector(demo, pipe.session.embedder, QUESTION)
    lexical = [n for n, _ in bm25(demo, QUESTION, types=["exception"], k=100)]
    first, shared = lexical[0], lexical[1]
    others = [int(r[0]) for r in demo.query(
        "SELECT id FROM nodes WHERE type = 'exception' ORDER BY id")
        if int(r[0]) not in lexical[:20]][:60]

    def final(grounded: list[int], keep: int) -> list[int]:
        strands = hybrid_strands(demo, qvec, QUESTION, [(n, 1) for n in grounded],
                                 ["exception"], 20, keep_graph=13,
                                 weights=RankingSettings(graph=20.0, keep_bm25=keep))
        return [c.node_id for c in strands.final]

    assert first in final(others, 1) and len(final(others, 1)) == 20
    assert first not in final(others, 0)  # the trusted graph strand crowds it out
    assert first not in final([shared, *others], 1)  # they agree on one: no keeping


def test_symbols_lexical_fuses_bm25_into_a_constants_ranking(demo: Store,
                                                             monkeypatch) -> None:
    """[ranking] symbols_lexical: a node BM25 finds for a constant's name joins its
    candidates even when the vector search misses it (score 0: no similarity known)."""
    import afr.methods.af.symbols as symbols
    from afr.cypher.resolve import ResolvedSymbol
    from afr.lexical import bm25
    from afr.retrieval.filters import AttributeCatalog
    from afr.settings import BM25Settings

    sym = ResolvedSymbol("m", "module", "module", ["aifc"], [])
    best = bm25(demo, "aifc", types=["module"], k=1)[0][0]
    blind = [(n, 0.5) for n in (1, 2, 3)]  # a vector search that misses it
    monkeypatch.setattr(symbols, "search", lambda *a, **k: list(blind))
    pipe = Pipeline(demo, settings_of(llm__offline=True))
    catalog = AttributeCatalog.from_store(demo)
    _, plan = symbols._prepare_symbol(demo, sym, catalog, l_max=3)
    assert plan is not None
    plain, fused = symbols._rank_all(demo, pipe.session.embedder, [(plan, None), (plan, BM25Settings())])
    assert plain == blind
    assert best in [n for n, _ in fused] and dict(fused)[best] == 0.0
    assert len(fused) == 3


def test_one_scope_level_carries_no_similarity_order(demo: Store) -> None:
    """Step 6's level signal ranks every answer of one scope level alike: with the dense
    weight 0, the graph strand of 300 answers at level 1 is BM25's order of them (nodes
    without a query term after, by id), not the order of their similarities."""
    from afr.lexical import bm25
    from afr.methods.af.hybrid_ranking import hybrid_strands
    from afr.settings import RankingSettings
    from afr.vectors.search import query_vector

    pipe = Pipeline(demo, settings_of(llm__offline=True, rerank__method="none"))
    qvec = query_vector(demo, pipe.session.embedder, QUESTION)
    ids = [int(r[0]) for r in demo.query(
        "SELECT id FROM nodes WHERE type = 'exception' ORDER BY id LIMIT 300")]
    strands = hybrid_strands(demo, qvec, QUESTION, [(n, 1) for n in ids], ["exception"],
                             20, weights=RankingSettings(dense=0.0))
    lexical = [n for n, _ in bm25(demo, QUESTION, types=["exception"], ids=ids)]
    assert 5 <= len(lexical) < len(ids)
    rest = sorted(set(ids) - set(lexical))
    assert [c.node_id for c in strands.graph] == lexical + rest


def test_a_text_condition_that_filters_nothing_joins_the_questions_bm25(demo: Store) -> None:
    """A text condition no grounded answer meets is the Cypher's guess at the answer's
    wording: its words join the question's in the type's BM25 list (step 7), and a note
    says what that list also searched for."""
    from afr.lexical import bm25
    from afr.methods.af.hybrid_ranking import hybrid_strands
    from afr.settings import RankingSettings
    from afr.vectors.search import query_vector

    pipe = Pipeline(demo, settings_of(llm__offline=True, rerank__method="none"))
    qvec = query_vector(demo, pipe.session.embedder, QUESTION)
    grounded = [(int(r[0]), 1) for r in demo.query(
        "SELECT id FROM nodes WHERE type = 'exception' AND text NOT ILIKE '%compress%' "
        "ORDER BY id LIMIT 20")]
    wording = [n for n, _ in bm25(demo, "compressed data", types=["exception"])]
    question_only = {n for n, _ in bm25(demo, QUESTION, types=["exception"], k=100)}
    assert wording and not set(wording[:3]) & question_only
    cond = Condition("text", "CONTAINS", "compressed data")
    strands = hybrid_strands(demo, qvec, QUESTION, grounded, ["exception"], 20,
                             weights=RankingSettings(), text=[cond])
    assert set(wording[:3]) <= {n for n, _ in strands.lexical}
    assert "the question's BM25 list also searches for 'compressed data'" in strands.notes
    assert any("no grounded answer contains it" in n for n in strands.notes)


def test_a_graph_weighed_zero_says_the_list_is_the_hybrid_list(demo: Store) -> None:
    """[ranking] graph = 0: the graph has no say, so af's list is the hybrid list, and the
    note says so — not that the graph re-ranks the candidates (a weakly linked Cypher) or
    nothing at all (a confident one)."""
    from afr.methods.af.hybrid_ranking import hybrid_strands
    from afr.retrieval.lists import hybrid_fusion
    from afr.settings import RankingSettings
    from afr.vectors.search import query_vector

    pipe = Pipeline(demo, settings_of(llm__offline=True, rerank__method="none"))
    qvec = query_vector(demo, pipe.session.embedder, QUESTION)
    grounded = [(int(r[0]), 1) for r in demo.query(
        "SELECT id FROM nodes WHERE type = 'exception' ORDER BY id LIMIT 40")]
    weights = RankingSettings(graph=0.0)
    for confidence in (1.0, 0.3):
        strands = hybrid_strands(demo, qvec, QUESTION, grounded, ["exception"], 20,
                                 weights=weights, confidence=confidence)
        assert "the graph strand weighs 0 (ranking.graph = 0): the list is the hybrid " \
               "list of vector search and BM25" in strands.notes
        assert not any("weakly linked" in n for n in strands.notes)
        hybrid = hybrid_fusion(list(strands.vss), list(strands.lexical), weights,
                               ["exception"])
        assert [c.node_id for c in strands.final] == [n for n, _ in hybrid][:20]
