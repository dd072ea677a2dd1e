"""Steps 6–7 with hybrid ranking (``AskConfig.ranking = "hybrid"``), an extension of the
paper; ``"paper"`` keeps the paper's steps 6–7 exactly (``afr.pipeline.ranking``).

- Step 6 orders the grounded answers by a fusion (``afr.pipeline.fusion``) of question
  similarity (``doc``), BM25 of the question, the scope level, and the Cypher's text
  conditions on the target (``text CONTAINS …``) as BM25 signals — instead of strictly
  level first.
- A text condition on the target is a filter when it keeps at least one grounded answer,
  otherwise a ranking signal; either way a note says which (never dropped silently).
- Step 7's top-up list is a fusion of vector search (``doc_rel``) and BM25 over the target
  type. The final list fuses the graph strand (weighted by how much the Cypher is trusted),
  the vector list and the BM25 list: the graph adds evidence rather than imposing its
  order. A weakly linked Cypher (the offline formalizer's guess) only re-ranks the
  vector/BM25 candidates; it adds none of its own.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

import numpy as np

from afr.cypher.model import TEXT_OPERATORS, Condition
from afr.lexical import bm25, has_lexical_index
from afr.pipeline.config import AskConfig
from afr.pipeline.fusion import FusionWeights, fuse
from afr.pipeline.parallel import run_reads
from afr.pipeline.ranking import combine, graph_strand, graph_strand_all, vss_strand
from afr.pipeline.result import AskResult, Candidate
from afr.pipeline.text_match import match_text
from afr.store.base import Store
from afr.store.skb import SkbSchema

POOL = 100  # depth of the vector and BM25 lists fused over the target type
TEXT_ATTRIBUTES = ("text", "description", "abstract", "content", "summary")
WEAK_LINKING = 0.5  # below this confidence the graph strand only re-ranks
BAND_MAX = 5  # the first level's answers lead the final list when at most this many


@dataclass
class Strands:
    """The lists behind a final list (kept for evaluation variants)."""

    graph: list[Candidate]  # grounded answers in ranking order
    vss: list[tuple[int, float]]
    lexical: list[tuple[int, float]] = field(default_factory=list)
    final: list[Candidate] = field(default_factory=list)  # before step 8
    notes: list[str] = field(default_factory=list)
    explained: list[str] = field(default_factory=list)  # what ``explain`` noted


def text_conditions(conditions: Sequence[tuple[Condition, str]]) -> list[Condition]:
    """The target's unapplied conditions that are text matches on a text-like field."""
    return [c for c, _ in conditions
            if c.op in TEXT_OPERATORS and isinstance(c.value, str)
            and c.attribute.split(".")[-1].lower() in TEXT_ATTRIBUTES]


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


Explain = Callable[[Store, list[Candidate]], list[str]]


@dataclass
class _GraphSide:
    graph: list[Candidate]  # fused order, the first level's answers first
    paper_part: list[int]  # the paper's quota, in the paper's order
    question_bm25: list[tuple[int, float]]
    explained: list[str]


def _rank_graph(conn: Store, qvec: np.ndarray, question: str,
                grounded: Sequence[tuple[int, int]], types: Sequence[str] | None,
                depth: int, weights: FusionWeights, *, lexical: bool,
                text_signals: Sequence[str], keep_graph: int,
                explain: Explain | None) -> _GraphSide:
    """Step 6 on one connection: the grounded answers by (level, similarity), BM25 of the
    question in one statement (the type's best ``depth`` and every grounded answer wherever
    it ranks), their fusion, and ``explain`` on the result."""
    graph = graph_strand_all(conn, qvec, grounded)  # by (level, similarity)
    by_id = {c.node_id: c for c in graph}
    question_bm25 = bm25(conn, question, types=types, k=depth, also=list(by_id)) \
        if lexical else []
    paper_part = [c.node_id for c in graph[:max(keep_graph, 0)]]
    if graph:
        ids = list(by_id)
        dense = sorted(((c.node_id, c.vss_score if c.vss_score is not None else -1.0)
                        for c in graph), key=lambda x: (-x[1], x[0]))
        level = [(c.node_id, -float(c.level or 0)) for c in graph]  # graph is level-first
        signals = [(dense, weights.dense), (level, weights.level)]
        if lexical:
            signals.append(([(n, s) for n, s in question_bm25 if n in by_id],
                            weights.lexical))
            for t in text_signals:
                signals.append((bm25(conn, t, types=types, ids=ids), weights.text))
        fused_graph = [by_id[n] for n, _ in fuse(signals, method=weights.fusion,
                                                 rrf_k=weights.rrf_k)]
        # Level first only within the confident band: the answers of the first scope
        # level lead (ordered by relevance), the rest follow by fused relevance.
        first = min(c.level or 0 for c in graph)
        graph = [c for c in fused_graph if (c.level or 0) == first] + \
            [c for c in fused_graph if (c.level or 0) != first]
    explained = explain(conn, graph) if explain is not None and graph else []
    return _GraphSide(graph, paper_part, question_bm25, explained)


def hybrid_strands(store: Store, qvec: np.ndarray, question: str,
                   grounded: Sequence[tuple[int, int]], types: Sequence[str] | None, k: int,
                   *, weights: FusionWeights, confidence: float = 1.0,
                   text: Sequence[Condition] = (), keep_graph: int = 0,
                   explain: Explain | None = None) -> Strands:
    """Steps 6–7 fused. ``keep_graph``: how many of the graph strand's first answers (in
    the paper's order: level, then similarity) stay in the list whatever the fusion says —
    the paper's quota, so the graph only adds to what the paper's ranking finds.
    ``explain``: called with the ranked graph strand on the connection that ranked it (the
    answers' provenance), beside the vector search; its notes are ``Strands.explained``."""
    lexical_ok = has_lexical_index(store)
    grounded, text_signals, notes = apply_text_conditions(store, list(grounded), list(text)) \
        if lexical_ok else (list(grounded), [], [])
    if not lexical_ok:
        notes.append("no lexical index (run 'afr index'): hybrid ranking without BM25")
    depth = max(POOL, k)

    def rank_graph(conn: Store) -> _GraphSide:
        return _rank_graph(conn, qvec, question, grounded, types, depth, weights,
                           lexical=lexical_ok, text_signals=text_signals,
                           keep_graph=keep_graph, explain=explain)

    # Two independent reads, run at once where the store can: the plain vector list of
    # step 7, and the graph strand's ranking (then its provenance) on the other connection.
    vss, side = run_reads(store, [lambda conn: vss_strand(conn, qvec, types, depth),
                                  rank_graph])
    graph, paper_part, question_bm25 = side.graph, side.paper_part, side.question_bm25
    by_id = {c.node_id: c for c in graph}
    lexical = question_bm25[:depth]
    trust = weights.graph * max(0.0, min(confidence, 1.0))
    pool = None
    if confidence < WEAK_LINKING:
        pool = {n for n, _ in vss} | {n for n, _ in lexical}
        notes.append(f"weakly linked Cypher (confidence {confidence:.2f}): the graph only "
                     "re-ranks the vector and BM25 candidates")
    graph_list = [(c.node_id, 0.0) for c in graph[:depth]]
    fused = fuse([(graph_list, trust), (vss, weights.dense), (lexical, weights.lexical)],
                 method=weights.fusion, rrf_k=weights.rrf_k, only=pool)
    if graph and confidence >= WEAK_LINKING:
        # the confident band (first-level answers, a handful) leads the final list
        band = [c.node_id for c in graph if c.level == graph[0].level]
        if len(band) <= BAND_MAX:
            top = {n: s for n, s in fused}
            fused = [(n, top.get(n, 0.0)) for n in band] + \
                [(n, s) for n, s in fused if n not in set(band)]
    fused = fused[:k]
    must = paper_part if confidence >= WEAK_LINKING else []
    listed = set(must)
    must = must + [n for n, _ in vss[:max(weights.keep_vss, 0)] if n not in listed]
    if must:
        fused = _keep(fused, must, k)
    dense_score = dict(vss)
    lex_score = dict(lexical)
    vss_top = {n for n, _ in vss[:k]}
    final: list[Candidate] = []
    for node, score in fused:
        c = by_id.get(node)
        if c is None:
            source = "vss" if node in dense_score and (node not in lex_score or
                                                      node in vss_top) else "bm25"
            c = Candidate(node, source, None, dense_score.get(node))
        elif node in vss_top:
            c.source = "both"
        c.provenance = {**c.provenance, "scores": {
            "fused": score, "dense": dense_score.get(node, c.vss_score),
            "bm25": lex_score.get(node)}}
        final.append(c)
    return Strands(graph, vss, lexical, final, notes, side.explained)


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


def paper_strands(store: Store, qvec: np.ndarray, grounded: Sequence[tuple[int, int]],
                  types: Sequence[str] | None, k: int, quota: int) -> Strands:
    """The paper's steps 6–7, as ``Pipeline.ask`` runs them with ranking="paper" (the graph
    strand holds the quota only: all the list takes from it)."""
    part = graph_strand(store, qvec, grounded, quota)
    vss = vss_strand(store, qvec, types, k + len(part))
    return Strands(part, vss, [], combine([Candidate(c.node_id, c.source, c.level,
                                                      c.vss_score) for c in part], vss, k))


def baseline(store: Store, qvec: np.ndarray, question: str, types: Sequence[str] | None,
             k: int, method: str, weights: FusionWeights) -> list[Candidate]:
    """The plain methods: ``vss`` (vector search over the target type, ``doc_rel``),
    ``bm25`` (BM25 over it) and ``hybrid`` (their fusion)."""
    if method == "vss":
        return [Candidate(n, "vss", None, s) for n, s in vss_strand(store, qvec, types, k)]
    lexical = bm25(store, question, types=types, k=max(POOL, k))
    if method == "bm25":
        return [Candidate(n, "bm25", None, None, {"scores": {"bm25": s}})
                for n, s in lexical[:k]]
    vss = vss_strand(store, qvec, types, max(POOL, k))
    dense, lex = dict(vss), dict(lexical)
    return [Candidate(n, "hybrid", None, dense.get(n),
                      {"scores": {"fused": s, "dense": dense.get(n), "bm25": lex.get(n)}})
            for n, s in fuse([(vss, weights.dense), (lexical, weights.lexical)],
                             method=weights.fusion, rrf_k=weights.rrf_k)[:k]]



def answer_types(result: AskResult, schema: SkbSchema) -> list[str]:
    """The types an ask's answers are searched among: its target type when known, else
    every candidate type of the SKB."""
    return [result.target_type] if result.target_type else list(schema.candidate_types)


def target_text_conditions(result: AskResult) -> list[Condition]:
    """The target's text conditions the attribute filters could not apply."""
    target = result.resolved.target if result.resolved else None
    cands = result.symbols.get(target) if target else None
    if cands is None or cands.filters is None:
        return []
    return text_conditions(cands.filters.unapplied)


def rank_hybrid(store: Store, qvec: np.ndarray, result: AskResult, schema: SkbSchema,
                cfg: AskConfig, weights: FusionWeights | None = None, *,
                explain: Explain | None = None) -> list[Candidate]:
    """Steps 6–7, hybrid: fills the result's strands, returns the list before step 8.
    ``explain``: see ``hybrid_strands``."""
    grounded = result.grounding.answers if result.grounding else []
    strands = hybrid_strands(store, qvec, result.question, grounded, answer_types(result, schema),
                             cfg.k, weights=weights or FusionWeights.from_settings(),
                             confidence=result.link_confidence,
                             text=target_text_conditions(result), keep_graph=cfg.graph_quota,
                             explain=explain)
    result.graph_ranked, result.vss_ranked = strands.graph, strands.vss
    result.lexical_ranked, result.pre_rerank = strands.lexical, list(strands.final)
    result.warnings += strands.notes + strands.explained
    return strands.final


def plain_candidates(store: Store, qvec: np.ndarray, question: str, result: AskResult,
                     schema: SkbSchema, cfg: AskConfig,
                     weights: FusionWeights | None = None) -> list[Candidate]:
    """The list of a plain method (``cfg.method`` vss, bm25 or hybrid)."""
    out = baseline(store, qvec, question, answer_types(result, schema), cfg.k, cfg.method,
                   weights or FusionWeights.from_settings())
    result.pre_rerank = list(out)
    if cfg.method == "vss":
        result.vss_ranked = [(c.node_id, c.vss_score or 0.0) for c in out]
    return out
