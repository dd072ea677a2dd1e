"""Steps 6–7 with hybrid ranking (``af.ranking = "hybrid"``), an extension of the paper;
``"paper"`` keeps the paper's steps 6–7 (``afr.methods.af.paper_ranking``).

- Step 6 orders the grounded answers by a fusion (``afr.retrieval.fusion``) of question
  similarity (``doc``), BM25 of the question, the scope level, and the Cypher's text
  conditions on the target (``text CONTAINS …``) as BM25 signals — instead of strictly
  level first. Similarity and BM25 are of the question without its constants' names
  (``residual_question``): every grounded answer already meets them.
- A text condition on the target is a filter when it keeps at least one grounded answer,
  otherwise a ranking signal; either way a note says which (never dropped silently). A
  ranking signal's words also join the question's in the type's BM25 list (step 7's, and
  step 6's question signal when there is no residual question): the Cypher's guess at the
  answer's wording, where the question has its own ("fear of heights" for "an abnormal
  fear of being high up").
- Step 7's top-up list is a fusion of vector search (``doc_rel``) and BM25 over the target
  type. The final list fuses the graph strand (weighted by how much the Cypher is trusted),
  the vector list and the BM25 list: the graph adds evidence rather than imposing its
  order. A weakly linked Cypher (the offline formalizer's guess) only re-ranks the
  vector/BM25 candidates, with its first-level answers; it adds none of its own. Where the
  graph has no say (no answers, or a Cypher trusted not at all), the final list is the
  plain hybrid list (``afr.retrieval.lists.hybrid_fusion``).
- A Cypher whose only constraints are text conditions on the target (``WHERE y.text
  CONTAINS …``, no relation, no other condition) grounds by wording alone: its answers
  weigh as text evidence (``ranking.text``), not as graph evidence, and lead no band.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace

import numpy as np

from afr.cypher.model import Condition
from afr.lexical import bm25, has_lexical_index
from afr.methods.af.paper_ranking import graph_strand_all
from afr.retrieval.candidate import Candidate, Ranked, Strands
from afr.retrieval.filters import AttributeOrder
from afr.retrieval.fusion import fuse
from afr.retrieval.lists import POOL, hybrid_fusion, vss_strand
from afr.retrieval.parallel import run_reads
from afr.retrieval.text_match import match_text
from afr.retrieval.weights import dense_of
from afr.settings import BM25Settings, RankingSettings
from afr.store.base import Store
from afr.text import without_names
from afr.vectors.search import search

WEAK_LINKING = 0.5  # below this confidence the graph strand only re-ranks
# ... and only its answers up to this scope level count: the constants' own best matches.
# A wider scope of a guessed link is a guess upon a guess (on the WordNet dev questions its
# answers, 5 to 27 levels out, pushed BM25's right first answer down to 4th or 7th).
WEAK_LEVEL = 1
BAND_MAX = 5  # the first level's answers lead the final list when at most this many


def _text_terms(cond: Condition) -> str:
    # a regular expression's words are its evidence: (?i)foo.*bar → "foo bar"
    return re.sub(r"\\[a-zA-Z]|[^\w]+", " ", str(cond.value))


def apply_text_conditions(store: Store, grounded: list[tuple[int, int]],
                          conditions: list[Condition]
                          ) -> tuple[list[tuple[int, int]], list[str], list[str]]:
    """(grounded answers kept, text used as ranking signal, notes)."""
    notes: list[str] = []
    signals: list[str] = []
    for cond in conditions:
        shown = f"{cond.attribute} {cond.op} {cond.value!r}"
        if cond.op == "=~" or not grounded:
            signals.append(_text_terms(cond))
            notes.append(f"{shown}: used as a ranking signal")
            continue
        keep = set(match_text(store, [cond], field="text", ids=[n for n, _ in grounded],
                              limit=len(grounded) + 1))
        if keep:
            notes.append(f"{shown}: applied as a filter (kept {len(keep)} of "
                         f"{len(grounded)} grounded answers)")
            grounded = [(n, lv) for n, lv in grounded if n in keep]
        else:
            signals.append(_text_terms(cond))
            notes.append(f"{shown}: no grounded answer contains it; used as a ranking signal")
    return grounded, signals, notes


# the graph answers' provenance, on the connection that ranked them: (answers, notes)
Explain = Callable[[Store, list[Candidate]], tuple[list[Candidate], list[str]]]


@dataclass
class _GraphSide:
    graph: list[Candidate]  # fused order, the first level's answers first
    paper_part: list[int]  # the paper's quota, in the paper's order
    question_bm25: list[tuple[int, float]]
    explained: list[str]


def _rank_graph(conn: Store, qvec: np.ndarray, question: str,
                grounded: Sequence[tuple[int, int]], types: Sequence[str] | None,
                depth: int, weights: RankingSettings, params: BM25Settings, *,
                lexical: bool, text_signals: Sequence[str], keep_graph: int,
                residual: tuple[str, np.ndarray] | None, explain: Explain | None,
                orders: Sequence[AttributeOrder] = ()) -> _GraphSide:
    """Step 6 on one connection: the grounded answers by (level, similarity), BM25 of the
    question and its text signals' words in one statement (the type's best ``depth`` and
    every grounded answer wherever it ranks), their fusion, and ``explain`` on the
    result."""
    graph = graph_strand_all(conn, qvec, grounded)  # by (level, similarity)
    by_id = {c.node_id: c for c in graph}
    question_bm25 = bm25(conn, " ".join([question, *text_signals]), params=params,
                         types=types, k=depth, also=list(by_id)) if lexical else []
    paper_part = [c.node_id for c in graph[:max(keep_graph, 0)]]
    if graph:
        ids = list(by_id)
        # each answer's similarity (-1 without a vector): to the residual question, else
        # the one step 6 ordered by
        similarity = dict(search(conn, "doc", residual[1], len(ids), ids=ids)) if residual \
            else {c.node_id: c.vss_score for c in graph if c.vss_score is not None}
        dense = sorted(((n, similarity.get(n, -1.0)) for n in ids),
                       key=lambda x: (-x[1], x[0]))
        level = [(c.node_id, -float(c.level or 0)) for c in graph]  # graph is level-first
        signals = [(dense, dense_of(weights)), (level, weights.level)]
        if lexical:
            signals.append((bm25(conn, residual[0], params=params, types=types, ids=ids)
                            if residual else
                            [(n, s) for n, s in question_bm25 if n in by_id],
                            weights.lexical))
            for t in text_signals:
                signals.append((bm25(conn, t, params=params, types=types, ids=ids),
                                weights.text))
        # a comparison none met, weighed as its text conditions are
        signals += [(order.ranked(conn, ids), weights.text) for order in orders]
        # Equal scores are equal evidence: every answer of one scope level ranks alike on
        # the level signal (ranked by position, the level list's similarity order would
        # carry the level's weight, far above the embedder's own).
        fused_graph = [by_id[n] for n, _ in fuse(signals, method=weights.fusion,
                                                 rrf_k=weights.rrf_k, ties=True)]
        # Level first only within the confident band: the answers of the first scope
        # level lead (ordered by relevance), the rest follow by fused relevance.
        first = min(c.level or 0 for c in graph)
        graph = [c for c in fused_graph if (c.level or 0) == first] + \
            [c for c in fused_graph if (c.level or 0) != first]
    explained: list[str] = []
    if explain is not None and graph:
        graph, explained = explain(conn, graph)
    return _GraphSide(graph, paper_part, question_bm25, explained)


def residual_question(question: str, anchors: Sequence[str]) -> str:
    """The question without the names its constants search for: what tells the grounded
    answers apart, each of which already meets the constants ("viewed together with
    Titanium Knife Set T400, praised for compact buttons": the buttons, not the knives)."""
    rest = without_names(question, anchors)
    return question if rest == question or not re.search(r"\w", rest) else rest


def hybrid_strands(store: Store, qvec: np.ndarray, question: str,
                   grounded: Sequence[tuple[int, int]], types: Sequence[str] | None, k: int,
                   *, weights: RankingSettings, params: BM25Settings = BM25Settings(),
                   confidence: float = 1.0, text: Sequence[Condition] = (),
                   signals: Sequence[str] = (), keep_graph: int = 0,
                   text_only: bool = False, residual: tuple[str, np.ndarray] | None = None,
                   explain: Explain | None = None, orders: Sequence[AttributeOrder] = ()
                   ) -> Strands:
    """Steps 6–7 fused. ``keep_graph``: how many of the graph strand's first answers (in
    the paper's order: level, then similarity) stay in the list whatever the fusion says —
    the paper's quota, so the graph only adds to what the paper's ranking finds.
    ``explain``: called with the ranked graph strand on the connection that ranked it (the
    answers' provenance), beside the vector search; its notes follow the ranking's.
    ``signals``: more text to rank the graph strand by (BM25), e.g. a target's name
    that filtered nothing. ``text_only``: the Cypher constrains by its text conditions
    alone (no relation, no other condition), so its answers are text evidence.
    ``orders``: comparisons that grounded nothing, ranking the answers nearest to meeting
    them first."""
    lexical_ok = has_lexical_index(store)
    grounded, text_signals, notes = apply_text_conditions(store, list(grounded), list(text)) \
        if lexical_ok else (list(grounded), [], [])
    if lexical_ok:
        text_signals = [*text_signals, *signals]
        if text_signals:
            searched = ", ".join(repr(t.strip()) for t in text_signals)
            notes.append(f"the question's BM25 list also searches for {searched}")
    if not lexical_ok:
        notes.append("no lexical index (run 'afr index'): hybrid ranking without BM25")
    depth = max(POOL, k)

    def rank_graph(conn: Store) -> _GraphSide:
        return _rank_graph(conn, qvec, question, grounded, types, depth, weights, params,
                           lexical=lexical_ok, text_signals=text_signals,
                           keep_graph=keep_graph, residual=residual, explain=explain,
                           orders=orders)

    # Two independent reads, run at once where the store can: the plain vector list of
    # step 7, and the graph strand's ranking (then its provenance) on the other connection.
    vss, side = run_reads(store, [lambda conn: vss_strand(conn, qvec, types, depth),
                                  rank_graph])
    lexical = side.question_bm25[:depth]
    say = _graph_say(side.graph, confidence, depth, weights, text_only)
    if say:
        notes.append(say)
    if text_only and side.graph:
        notes.append("the Cypher constrains by text alone: its answers count as text "
                     f"evidence (weight {weights.text:g}), not as graph evidence")
    fused = _fuse_strands(side, vss, lexical, k, weights, confidence, types,
                          text_only=text_only)
    final = _candidates(fused, side.graph, vss, lexical, k)
    return Strands(tuple(side.graph), tuple(vss), tuple(lexical), tuple(final),
                   tuple(notes + side.explained))


def _graph_say(graph: Sequence[Candidate], confidence: float, depth: int,
               weights: RankingSettings, text_only: bool) -> str | None:
    """What say the graph strand has in the fusion (``_fuse_strands``), where it has less
    than a confident Cypher's: a note for the explanation."""
    if confidence <= 0:  # trusted not at all
        return ("Cypher linked with no confidence: the list is the hybrid list of vector "
                "search and BM25")
    if _graph_trust(weights, confidence, text_only) <= 0:
        knob = "ranking.text" if text_only else "ranking.graph"
        return (f"the graph strand weighs 0 ({knob} = 0): the list is the hybrid list of "
                "vector search and BM25")
    if confidence < WEAK_LINKING and not _graph_list(graph, confidence, depth):
        return (f"weakly linked Cypher (confidence {confidence:.2f}) with no answer at its "
                "first level: the list is the hybrid list of vector search and BM25")
    if confidence < WEAK_LINKING:
        return (f"weakly linked Cypher (confidence {confidence:.2f}): the graph only "
                "re-ranks the vector and BM25 candidates, with its level-1 answers")
    return None


def _graph_trust(weights: RankingSettings, confidence: float, text_only: bool) -> float:
    """The graph strand's weight in the fusion: its knob times the Cypher's confidence."""
    return (weights.text if text_only else weights.graph) * max(0.0, min(confidence, 1.0))


def _graph_list(graph: Sequence[Candidate], confidence: float, depth: int) -> Ranked:
    """The graph strand's answers that count in the fusion: a confident Cypher's, and of
    a weakly linked one only those of its constants' own best matches (level 1)."""
    confident = confidence >= WEAK_LINKING
    return [(c.node_id, 0.0) for c in graph[:depth]
            if confident or (c.level is not None and c.level <= WEAK_LEVEL)]


def _fuse_strands(side: _GraphSide, vss: Ranked, lexical: Ranked, k: int,
                  weights: RankingSettings, confidence: float,
                  types: Sequence[str] | None, *, text_only: bool = False) -> Ranked:
    """The final list's node ids and fused scores: the graph strand (weighted by how much
    the Cypher is trusted), the vector list and the BM25 list fused; the confident band
    first; the paper's quota, the vector search's ``keep_vss`` and BM25's ``keep_bm25``
    kept in. A ``text_only`` Cypher's answers weigh as a text condition and lead no band.
    Where the graph has no say, the hybrid list over the answer ``types``."""
    graph, depth = side.graph, max(POOL, k)
    # Text conditions alone are a guess at the answer's wording: the question's own BM25
    # is evidence of the same kind (WordNet dev, noisy Cypher: `(y:noun_concept) WHERE
    # y.text CONTAINS "out of the window"` pushed BM25's right first answer to 20th).
    trust = _graph_trust(weights, confidence, text_only)
    confident = confidence >= WEAK_LINKING
    # a weakly linked Cypher only re-ranks the vector and BM25 candidates
    pool = None if confident else {n for n, _ in vss} | {n for n, _ in lexical}
    graph_list = _graph_list(graph, confidence, depth)
    if graph_list and trust > 0:
        fused = fuse([(graph_list, trust), (vss, dense_of(weights)),
                      (lexical, weights.lexical)],
                     method=weights.fusion, rrf_k=weights.rrf_k, only=pool)
    else:  # the graph has no say: af's list is the hybrid list
        fused = hybrid_fusion(vss, lexical, weights, types)
    if graph and confident and not text_only:
        # the confident band (first-level answers, a handful) leads the final list
        band = [c.node_id for c in graph if c.level == graph[0].level]
        if len(band) <= BAND_MAX:
            top = {n: s for n, s in fused}
            fused = [(n, top.get(n, 0.0)) for n in band] + \
                [(n, s) for n, s in fused if n not in set(band)]
    fused = fused[:k]
    must = side.paper_part if confident else []
    listed = set(must)
    # A graph that shares no answer with BM25's first k disagrees with it entirely (a
    # wrong relation or label grounds other nodes: WordNet's noisy Cypher pushed BM25's
    # right first answer out of the list for 6 of 47 dev questions): BM25's first stay.
    graph_ids = {c.node_id for c in graph}
    disagree = not any(n in graph_ids for n, _ in lexical[:k])
    keep_bm25 = max(weights.keep_bm25, 0) if disagree else 0
    for kept in (vss[:max(weights.keep_vss, 0)], lexical[:keep_bm25]):
        must = must + [n for n, _ in kept if n not in listed]
        listed.update(must)
    return _keep(fused, must, k) if must else fused


def _candidates(fused: Ranked, graph: Sequence[Candidate], vss: Ranked, lexical: Ranked,
                k: int) -> list[Candidate]:
    """The fused list as candidates: each with the strand that found it (graph, vss,
    bm25; both: graph and the vector search's top k) and its scores."""
    by_id = {c.node_id: c for c in graph}
    dense_score, lex_score = dict(vss), dict(lexical)
    vss_top = {n for n, _ in vss[:k]}
    final: list[Candidate] = []
    for node, score in fused:
        c = by_id.get(node)
        if c is None:
            source = "vss" if node in dense_score and (node not in lex_score or
                                                      node in vss_top) else "bm25"
            c = Candidate(node, source, None, dense_score.get(node))
        elif node in vss_top:
            c = replace(c, source="both")
        final.append(replace(c, provenance={**c.provenance, "scores": {
            "fused": score, "dense": dense_score.get(node, c.vss_score),
            "bm25": lex_score.get(node)}}))
    return final


def _keep(ranked: list[tuple[int, float]], must: list[int], k: int
          ) -> list[tuple[int, float]]:
    """``ranked`` (at most ``k`` long) with every node of ``must`` in it: a missing one
    goes to the end, in the place of the lowest-ranked entry not in ``must`` when the list
    is full."""
    inside = {n for n, _ in ranked}
    missing = [n for n in must if n not in inside]
    if not missing:
        return ranked
    wanted = set(must)
    out = list(ranked)
    for _ in range(max(0, len(out) + len(missing) - k)):
        drop = next((i for i in range(len(out) - 1, -1, -1) if out[i][0] not in wanted), None)
        if drop is None:
            break
        del out[drop]
    return (out + [(n, 0.0) for n in missing])[:k]
