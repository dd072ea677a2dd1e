"""SAGE: the similarity graph (``afr index --similarity``) and the expansion
(``--method sage`` / ``af+sage``).

- the graph's candidate pairs, thresholds and kept pairs equal a brute-force computation
  over the full similarity matrix (random vectors, several sizes, chunked products);
- the expansion on a hand-built graph: seeds first in seed order, then neighbours of the
  target type by fused score, seeds never twice, the seed list filling what is left;
- both stores build the same graph and give the same answers with both methods;
- the CLI: one-line errors, and an ask without a graph warns and answers.
"""

from __future__ import annotations

import csv
import json
from pathlib import Path

import numpy as np
import pytest
from afr.cli.main import cli
from click.testing import CliRunner
from settings_util import settings_of
from skbutil import TOY_SCHEMA, write_skb

from afr.embed import make_embedder
from afr.lexical.index import build_lexical_index
from afr.load import load_skb_dir
from afr.methods.sage.expand import (
    FILL,
    NEIGHBOUR,
    NO_GRAPH,
    SEED,
    SageSettings,
    expand_list,
    has_similarity_graph,
    neighbours_of,
    relational_skip,
)
from afr.pipeline.ask import Pipeline
from afr.pipeline.result import Candidate
from afr.store import DuckDBStore, Store
from afr.synth import generate
from afr.vectors import embed_store
from afr.vectors.memory import version_key
from afr.vectors.search import query_vector
from afr.vectors.similarity import (
    MIN_GROUP_PAIRS,
    build_similarity_graph,
    knn_candidates,
    normalise,
    similarity_meta,
    threshold_pairs,
)


@pytest.fixture(autouse=True)
def _no_settings(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("AFR_CACHE_DIR", str(tmp_path / "cache"))
    for name in ("AFR_DB", "AFR_SCHEMA", "AFR_LLM_BASE_URL", "AFR_LLM_MODEL", "AFR_CONFIG"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.chdir(tmp_path)  # no ./afr.toml of the developer's


# -- the graph against brute force --------------------------------------------------------


def _brute_force(vectors: np.ndarray, types: np.ndarray, k: int, percentile: float
                 ) -> tuple[set[tuple[int, int]], dict[tuple[str, str], float],
                            set[tuple[int, int]]]:
    """(candidate pairs, threshold per type pair, kept pairs) from the full matrix."""
    n = len(vectors)
    unit = vectors / np.linalg.norm(vectors, axis=1, keepdims=True)
    full = unit.astype(np.float64) @ unit.astype(np.float64).T
    np.fill_diagonal(full, -np.inf)
    cands = set()
    for i in range(n):
        for j in np.argsort(-full[i], kind="stable")[:min(k, n - 1)]:
            cands.add((min(i, int(j)), max(i, int(j))))
    score = {p: np.float32(full[p]) for p in cands}
    groups: dict[tuple[str, str], list[tuple[int, int]]] = {}
    for a, b in cands:
        groups.setdefault(tuple(sorted((str(types[a]), str(types[b])))), []).append((a, b))
    overall = float(np.percentile([float(x) for x in score.values()], percentile))
    thresholds = {g: float(np.percentile([float(score[p]) for p in ps], percentile))
                  if len(ps) >= MIN_GROUP_PAIRS else overall for g, ps in groups.items()}
    kept = {p for g, ps in groups.items() for p in ps
            if score[p] >= np.float32(thresholds[g])}
    return cands, thresholds, kept


@pytest.mark.parametrize(("n", "dim", "k", "percentile", "seed"),
                         [(2, 4, 5, 95, 0), (9, 5, 3, 50, 1), (60, 8, 10, 95, 2),
                          (157, 16, 50, 90, 3), (230, 12, 7, 80, 4)])
def test_graph_equals_brute_force(n: int, dim: int, k: int, percentile: float,
                                  seed: int) -> None:
    rng = np.random.default_rng(seed)
    vectors = rng.standard_normal((n, dim)).astype(np.float32)
    types = rng.choice(np.asarray(["a", "b", "c"], dtype=object), size=n)
    # a tiny chunk budget: many matrix products of a few rows each
    pairs = knn_candidates(normalise(vectors), k, chunk_mb=0.002)
    keep, thresholds = threshold_pairs("doc", types, pairs, percentile)
    want_cands, want_thresholds, want_kept = _brute_force(vectors, types, k, percentile)
    got_cands = set(zip(pairs.lo.tolist(), pairs.hi.tolist(), strict=True))
    assert got_cands == want_cands
    got_thresholds = {(t.src_type, t.dst_type): t.threshold for t in thresholds}
    assert got_thresholds.keys() == want_thresholds.keys()
    for group, value in want_thresholds.items():
        assert got_thresholds[group] == pytest.approx(value, abs=1e-6)
    got_kept = {p for p, kept in zip(sorted(got_cands), keep.tolist(), strict=True) if kept}
    assert got_kept == want_kept
    assert sum(t.n_kept for t in thresholds) == len(want_kept)


# -- the expansion on a hand-built graph ----------------------------------------------------


PAPERS = {
    "p1": "Residual networks for image recognition",
    "p2": "Attention over graph neighbourhoods",
    "p3": "Graph convolutional networks for node classification",
    "p4": "Graph attention with spectral filters for molecules",
    "p5": "Protein folding with deep learning",
    "p6": "Reinforcement learning for robot control",
}


def _toy(store: Store, tmp: Path) -> dict[str, int]:
    nodes = [{"id": pid, "type": "paper", "name": text, "text": text}
             for pid, text in PAPERS.items()]
    nodes += [{"id": "a1", "type": "author", "name": "Graph Attention Person"}]
    write_skb(tmp / "skb", TOY_SCHEMA, nodes, [("a1", "writes", "p1")])
    load_skb_dir(store, tmp / "skb", progress=False)
    embed_store(store, make_embedder("hash"), progress=False)
    build_lexical_index(store, progress=False)
    return {r[0]: int(r[1]) for r in store.query("SELECT ext_id, id FROM nodes")}


def _link(store: Store, ids: dict[str, int], links: list[tuple[str, str, str, float]]) -> None:
    """Hand-written similarity links (both directions) and a build record."""
    src = [ids[a] for a, b, _, _ in links] + [ids[b] for a, b, _, _ in links]
    dst = [ids[b] for a, b, _, _ in links] + [ids[a] for a, b, _, _ in links]
    signal = [s for _, _, s, _ in links] * 2
    score = [x for _, _, _, x in links] * 2
    with store.transaction():
        store.write_rows("node_sim", {"src": np.asarray(src, np.int64),
                                      "dst": np.asarray(dst, np.int64),
                                      "signal": np.asarray(signal, object),
                                      "score": np.asarray(score, np.float32)})
        store.execute("INSERT INTO node_sim_meta (signal) VALUES ('any')")
    store.forget_facts()


def test_expansion_order_type_filter_and_fill(store: Store, tmp_path: Path) -> None:
    ids = _toy(store, tmp_path)
    name = {v: k for k, v in ids.items()}
    assert not has_similarity_graph(store)
    _link(store, ids, [("p1", "p3", "doc", 0.9), ("p1", "a1", "name", 0.95),
                       ("p1", "p2", "doc", 0.99), ("p2", "p4", "doc", 0.8),
                       ("p2", "p3", "name", 0.7), ("p2", "p3", "doc", 0.6)])
    assert has_similarity_graph(store)
    found = {name[n.node_id]: (name[n.via_seed], n.signal, round(n.sim, 3))
             for n in neighbours_of(store, [ids["p1"], ids["p2"]], ["paper"])}
    # best link per neighbour; seeds and other types left out
    assert found == {"p3": ("p1", "doc", 0.9), "p4": ("p2", "doc", 0.8)}
    question = "graph attention spectral filters molecules"
    qvec = query_vector(store, make_embedder("hash"), question)
    seed_list = [Candidate(ids[p], "hybrid", None, 0.5) for p in ("p2", "p1", "p6", "p5")]
    settings = SageSettings(k_seed=2, compete=False)  # the paper's rule
    out, trace, warnings = expand_list(store, qvec, question, seed_list, 5, ["paper"],
                                       settings)
    assert [name[c.node_id] for c in out] == ["p2", "p1", "p4", "p3", "p6"]
    assert [c.source for c in out] == [SEED, SEED, NEIGHBOUR, NEIGHBOUR, FILL]
    assert warnings == [] and (trace.seeds, trace.neighbours, trace.kept, trace.filled) \
        == (2, 2, 2, 1)
    top = out[2].provenance
    assert top["sage"] == {"role": "neighbour", "via_seed": ids["p2"], "signal": "doc",
                           "sim": pytest.approx(0.8)}
    assert top["scores"]["fused"] == pytest.approx(1.0)  # best on both signals
    assert out[0].provenance["sage"] == {"role": "seed", "seed_rank": 1, "strand": "hybrid"}
    # k' = K − |seeds|: a budget of 3 keeps one neighbour, the best
    short, _, _ = expand_list(store, qvec, question, seed_list, 3, ["paper"], settings)
    assert [name[c.node_id] for c in short] == ["p2", "p1", "p4"]
    # the type filter switched off: the author is a neighbour too
    anytype, _, _ = expand_list(store, qvec, question, seed_list, 6, ["paper"],
                                SageSettings(k_seed=2, same_type=False, compete=False))
    assert "a1" in {name[c.node_id] for c in anytype}
    # a reason to skip keeps the seed list as it is
    kept, trace, _ = expand_list(store, qvec, question, seed_list, 3, ["paper"], settings,
                                 skip="relational")
    assert [c.node_id for c in kept] == [c.node_id for c in seed_list[:3]]
    assert trace.skipped == "relational"



def test_the_seed_lists_next_answers_compete_with_the_neighbours(store: Store,
                                                                 tmp_path: Path) -> None:
    """``compete`` (the default): a neighbour enters only by outscoring the seed list's
    next answers; the paper's rule puts every neighbour first."""
    ids, name, question, qvec = _linked_toy(store, tmp_path)
    seed_list = [Candidate(ids[p], "hybrid", None, 0.5) for p in ("p2", "p1", "p5", "p6")]
    paper, _, _ = expand_list(store, qvec, question, seed_list, 4, ["paper"],
                              SageSettings(k_seed=2, compete=False))
    assert [c.source for c in paper] == [SEED, SEED, NEIGHBOUR, NEIGHBOUR]
    out, trace, _ = expand_list(store, qvec, question, seed_list, 4, ["paper"],
                                SageSettings(k_seed=2))
    # p5 has all the question's words, p6 "learning": both outscore the neighbours
    assert [name[c.node_id] for c in out] == ["p2", "p1", "p5", "p6"]
    assert [c.source for c in out] == [SEED, SEED, FILL, FILL]
    assert (trace.kept, trace.filled) == (0, 2)
    assert out[2].provenance["scores"]["fused"] == pytest.approx(1.0)
    # with no trust in the embedder, the pruning is BM25's: nodes without the question's
    # words score nothing, whatever their vectors
    def neighbour_scores(trust: float) -> list[float]:
        found, _, _ = expand_list(store, qvec, question, seed_list, 6, ["paper"],
                                  SageSettings(k_seed=2), dense_trust=trust)
        return [c.provenance["scores"]["fused"] for c in found if c.source == NEIGHBOUR]
    assert len(neighbour_scores(0.0)) == 2 and sum(neighbour_scores(0.0)) == 0
    assert sum(neighbour_scores(1.0)) > 0


def _linked_toy(store: Store, tmp_path: Path):
    """The toy papers with p1–p3 and p2–p4 linked by similarity, a question and its
    vector: (ids by name, names by id, question, vector)."""
    ids = _toy(store, tmp_path)
    _link(store, ids, [("p1", "p3", "doc", 0.9), ("p2", "p4", "doc", 0.8)])
    question = "protein folding with deep learning"
    return (ids, {v: k for k, v in ids.items()}, question,
            query_vector(store, make_embedder("hash"), question))


def test_the_seed_lists_next_answers_keep_their_order(store: Store, tmp_path: Path) -> None:
    """The pruning's scores decide where a neighbour enters, not the order of the seed
    list's own answers: p6 before p5 stays so, though p5 has more of the question's words
    (re-scored, BM25's near ties came out in another order than the seed list's)."""
    ids, name, question, qvec = _linked_toy(store, tmp_path)
    seed_list = [Candidate(ids[p], "hybrid", None, 0.5) for p in ("p2", "p1", "p6", "p5")]
    out, trace, _ = expand_list(store, qvec, question, seed_list, 6, ["paper"],
                                SageSettings(k_seed=2))
    assert [name[c.node_id] for c in out][:4] == ["p2", "p1", "p6", "p5"]
    assert [c.source for c in out] == [SEED, SEED, FILL, FILL, NEIGHBOUR, NEIGHBOUR]
    scores = [c.provenance["scores"]["fused"] for c in out[2:4]]
    assert scores[0] < scores[1]  # kept in the seed list's order, not by score


def test_relational_skip_rule() -> None:
    assert relational_skip(triplets=1, grounded=13, quota=13) is not None
    assert relational_skip(triplets=1, grounded=12, quota=13) is None
    assert relational_skip(triplets=0, grounded=50, quota=13) is None


def test_without_a_graph_the_seeds_answer_with_a_warning(store: Store, tmp_path: Path) -> None:
    _toy(store, tmp_path)
    result = Pipeline(store, settings_of(ask__method="sage", llm__offline=True, ask__k=4)).ask(
        "graph attention networks")
    assert len(result.answers) == 4
    assert any(w.startswith(NO_GRAPH) for w in result.warnings)
    assert result.sage.skipped == NO_GRAPH


# -- both stores: the same graph, the same answers --------------------------------------


@pytest.fixture(scope="module")
def synth_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("synth-sage") / "skb"
    generate(out, like="prime", nodes=400, questions=12, seed=5)
    return out


def _graph_rows(store: Store) -> list[tuple]:
    rows = store.query("SELECT a.ext_id, b.ext_id, s.signal, s.score FROM node_sim s "
                       "JOIN nodes a ON a.id = s.src JOIN nodes b ON b.id = s.dst")
    return sorted((r[0], r[1], r[2], round(float(r[3]), 5)) for r in rows)


def test_both_stores_build_the_same_graph_and_answer_alike(
        duck_store, pg_store, synth_dir: Path, tmp_path: Path,
        monkeypatch: pytest.MonkeyPatch) -> None:
    stores = (duck_store, pg_store)
    for store in stores:
        load_skb_dir(store, synth_dir, progress=False)
        embed_store(store, make_embedder("hash"), progress=False)
        build_lexical_index(store, progress=False)
        report = build_similarity_graph(store, make_embedder("hash"), k_cand=10,
                                        progress=False)
        assert report.rows > 0 and report.degree.max > 0
        assert similarity_meta(store)[0].signal == "any"
    assert _graph_rows(duck_store) == _graph_rows(pg_store)
    with open(synth_dir / "questions.csv", encoding="utf-8", newline="") as fh:
        questions = list(csv.DictReader(fh))
    # "always": af+sage expands after the gold (relational) Cypher too
    answers = []
    for store in stores:
        got = {}
        for method in ("sage", "af+sage"):
            pipe = Pipeline(store, settings_of(
                ask__method=method, llm__offline=True, rerank__method="none",
                vectors__exact_search=True, sage__policy="always"))
            for q in questions:
                result = pipe.ask(q["query"], cypher=q["cypher"], target_type=q["target_type"])
                got[(method, q["id"])] = [a.ext_id for a in result.answers]
                assert result.sage is not None and result.sage.skipped is None
        answers.append(got)
    duck, pg = answers
    assert duck == pg
    assert any(NEIGHBOUR in {row[0] for row in store.query(
        "SELECT DISTINCT source FROM run_answers")} for store in stores)


# -- the CLI -----------------------------------------------------------------------------


def _afr(*args: str, code: int = 0):
    result = CliRunner().invoke(cli, list(args), catch_exceptions=False)
    assert result.exit_code == code, (args, result.output)
    return result


def test_cli_builds_the_graph_and_reports_clean_errors(tmp_path: Path) -> None:
    db = str(tmp_path / "toy.duckdb")
    store = DuckDBStore(db)
    _toy(store, tmp_path)
    store.close()
    for args in (["--percentile", "120"], ["--k-cand", "0"], ["--types", "nope"]):
        bad = _afr("--db", db, "index", "--similarity", *args, code=2 if args[0] != "--types"
                   else 1)
        lines = bad.stderr.strip().splitlines()
        assert lines[-1].startswith("afr: error: ") and "Traceback" not in bad.output
        assert len([ln for ln in lines if ln.startswith("afr:")]) == 1
    assert _afr("--db", db, "index", "--percentile", "90", code=2).stderr.startswith(
        "afr: error: --k-cand, --percentile and --types go with --similarity")
    store = DuckDBStore(db)
    assert not has_similarity_graph(store)  # nothing left behind by the failures
    store.close()
    out = _afr("--db", db, "index", "--similarity", "--k-cand", "3").output
    assert "similarity graph: 6 nodes of 1 types (paper)" in out
    assert "edges per node: mean" in out
    asked = _afr("--db", db, "ask", "graph attention", "--method", "sage", "--offline",
                 "-k", "5", "--explain")
    assert "sage: 5 seeds" in asked.output
    data = json.loads(_afr("--db", db, "ask", "graph attention", "--method", "af+sage",
                           "--offline", "--json").output)
    assert "sage" in data
    # new doc vectors make the graph stale: said, not hidden
    store = DuckDBStore(db)
    store.set_meta_value(version_key("doc"), "new-vectors")
    store.close()
    stale = _afr("--db", db, "ask", "graph attention", "--method", "sage", "--offline", "-k",
                 "12")
    assert "older than the doc vectors" in stale.stderr
