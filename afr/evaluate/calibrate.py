"""`afr index --calibrate`: the dense weights of the store's embedder, measured on questions.

For each question the vector list and the BM25 list over its answer type (the question
file's ``target_type`` column, else the type the question names) are fused with every
weight of ``GRID``, twice: by reciprocal rank, as steps 6–7 fuse them (``ranking.dense``),
and linearly on min-max normalised scores, as the hybrid list does
(``ranking.hybrid_dense``). Dev sets are small (tens of questions), so the weight with the
best mean MRR wins only by more than its noise: of the weights whose MRR lies within one
standard error of the best (the paired per-question differences), the one nearest the
embedder's own weight is kept — on WordNet's 47 dev questions the hash embedder's best
reciprocal rank weight, 0.1, beat its own 0.002 by 0.9 points of MRR and lost 6.7 points
of hit@1 on the test questions. Both are kept for the store's embedder
(``afr.retrieval.weights``) and used from then on, unless the settings name them.
"""

from __future__ import annotations

import math
import statistics
from dataclasses import dataclass, replace

from afr.embed import fusion_weight, hybrid_fusion_weight
from afr.errors import AfrError
from afr.evaluate.eval_runs import source_path
from afr.evaluate.metrics import question_metrics
from afr.evaluate.questions import Question, load_questions
from afr.lexical import bm25, has_lexical_index
from afr.methods.base import Session
from afr.retrieval.fusion import fuse
from afr.retrieval.linking import guess_target_type
from afr.retrieval.lists import POOL, answer_types, hybrid_fusion, vss_strand
from afr.retrieval.weights import record_calibration
from afr.vectors.search import query_vector

GRID = (0.0, 0.002, 0.01, 0.03, 0.1, 0.3, 1.0)


@dataclass(frozen=True)
class Calibration:
    weight: float  # the reciprocal rank fusions' weight kept
    mrr: dict[float, float]  # mean MRR of the two lists fused by reciprocal rank, per weight
    hybrid_weight: float  # the hybrid list's weight kept
    hybrid_mrr: dict[float, float]  # mean MRR of the hybrid list (linear), per weight
    questions: int


def calibrate_dense(session: Session, source: str, *, split: str | None = None,
                    limit: int | None = None) -> Calibration:
    """Measure both dense weights on the questions of ``source`` and keep them."""
    store = session.store
    if not has_lexical_index(store):
        raise AfrError("calibrating needs the lexical index: run 'afr index' first")
    questions = load_questions(source_path(source), split=split, limit=limit)
    if not questions:
        raise AfrError(f"{source}: no questions to calibrate on")
    lists = [_lists(session, q) for q in questions]
    rrf = {w: _mrrs(session, lists, w, linear=False) for w in GRID}
    linear = {w: _mrrs(session, lists, w, linear=True) for w in GRID}
    best = choose_weight(rrf, fusion_weight(session.embedder))
    best_hybrid = choose_weight(linear, hybrid_fusion_weight(session.embedder))
    mrr = {w: statistics.fmean(m) for w, m in rrf.items()}
    hybrid_mrr = {w: statistics.fmean(m) for w, m in linear.items()}
    record_calibration(store, session.embedder, best, source=str(source),
                       questions=len(questions), grid={str(w): m for w, m in mrr.items()},
                       hybrid=best_hybrid,
                       hybrid_grid={str(w): m for w, m in hybrid_mrr.items()})
    return Calibration(best, mrr, best_hybrid, hybrid_mrr, len(questions))


def _lists(session: Session, q: Question) -> tuple[Question, list, list, list[str]]:
    """(the question, its vector list, its BM25 list, its answer types) over its answer
    types."""
    store, k = session.store, max(POOL, session.settings.ask.k)
    target = q.extras.get("target_type") or guess_target_type(q.query, session.schema)
    types = answer_types(target or None, session.schema)
    qvec = query_vector(store, session.embedder, q.query)
    return (q, vss_strand(store, qvec, types, k),
            bm25(store, q.query, params=session.settings.bm25, types=types, k=k), types)


def choose_weight(per_question: dict[float, list[float]], own: float) -> float:
    """The weight nearest ``own`` (on a log scale; 0 counts as the grid's smallest step)
    among those whose mean MRR is within one standard error of the best weight's, the
    error of the mean of the paired per-question differences."""
    mean = {w: statistics.fmean(m) for w, m in per_question.items()}
    best = max(per_question, key=lambda w: (round(mean[w], 9), -w))

    def noise(w: float) -> float:
        diffs = [b - a for a, b in zip(per_question[w], per_question[best], strict=True)]
        return statistics.stdev(diffs) / math.sqrt(len(diffs)) if len(diffs) > 1 else 0.0

    close = [w for w in per_question if mean[best] - mean[w] <= noise(w) + 1e-12]
    floor = min(w for w in per_question if w > 0) / 10

    def distance(w: float) -> float:
        return abs(math.log(max(w, floor)) - math.log(max(own, floor)))

    return min(close, key=lambda w: (distance(w), w))


def _mrrs(session: Session, lists: list[tuple[Question, list, list, list[str]]], weight: float,
          *, linear: bool) -> list[float]:
    """Each question's MRR with ``weight``: the hybrid list's (``linear``; over several
    answer types it fuses by reciprocal rank, with the weight in force), else that of the
    reciprocal rank fusion steps 6–7 make of the same two lists."""
    ranking = replace(session.settings.ranking, hybrid_dense=weight)
    k = session.settings.ask.k
    ids = sorted({n for _, vss, lex, _ in lists for n, _ in vss + lex})
    ext = {i: str(d.ext_id) for i, d in session.store.node_details(ids).items()}
    out = []
    for q, vss, lex, types in lists:
        fused = hybrid_fusion(vss, lex, ranking, types) if linear else fuse(
            [(vss, weight), (lex, ranking.lexical)], method=ranking.fusion,
            rrf_k=ranking.rrf_k)
        ranked = [ext[n] for n, _ in fused[:k]]
        out.append(question_metrics(ranked, q.answer_ids)["mrr"])
    return out
