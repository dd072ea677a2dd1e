"""`afr index --calibrate`: the dense weight of the store's embedder, measured on questions.

For each question the vector list and the BM25 list over its answer type (the question
file's ``target_type`` column, else the type the question names) are fused with every
weight of ``GRID``. Dev sets are small (tens of questions), so the weight with the best
mean MRR of the ``hybrid`` list wins only by more than its noise: of the weights whose MRR
lies within one standard error of the best (the paired per-question differences), the one
nearest the embedder's own weight is kept — on WordNet's 47 dev questions the hash
embedder's best weight, 0.03, beat its own 0.002 by 0.2 points of MRR and lost 11 points of
hit@1 on the test questions. It is kept for the store's embedder
(``afr.retrieval.weights``) and used by every fusion of vector similarity and BM25 from
then on, unless the settings name one.
"""

from __future__ import annotations

import math
import statistics
from dataclasses import dataclass, replace

from afr.embed import fusion_weight
from afr.errors import AfrError
from afr.evaluate.eval_runs import source_path
from afr.evaluate.metrics import question_metrics
from afr.evaluate.questions import Question, load_questions
from afr.lexical import bm25, has_lexical_index
from afr.methods.base import Session
from afr.retrieval.linking import guess_target_type
from afr.retrieval.lists import POOL, answer_types, fuse_hybrid, vss_strand
from afr.retrieval.weights import record_calibration
from afr.vectors.search import query_vector

GRID = (0.0, 0.002, 0.01, 0.03, 0.1, 0.3, 1.0)


@dataclass(frozen=True)
class Calibration:
    weight: float  # the weight kept
    mrr: dict[float, float]  # mean MRR of the hybrid list per weight tried
    questions: int


def calibrate_dense(session: Session, source: str, *, split: str | None = None,
                    limit: int | None = None) -> Calibration:
    """Measure the dense weight on the questions of ``source`` and keep it."""
    store = session.store
    if not has_lexical_index(store):
        raise AfrError("calibrating needs the lexical index: run 'afr index' first")
    questions = load_questions(source_path(source), split=split, limit=limit)
    if not questions:
        raise AfrError(f"{source}: no questions to calibrate on")
    lists = [_lists(session, q) for q in questions]
    per_question = {w: _mrrs(session, lists, w) for w in GRID}
    mrr = {w: statistics.fmean(m) for w, m in per_question.items()}
    best = choose_weight(per_question, fusion_weight(session.embedder))
    record_calibration(store, session.embedder, best, source=str(source),
                       questions=len(questions), grid={str(w): m for w, m in mrr.items()})
    return Calibration(best, mrr, len(questions))


def _lists(session: Session, q: Question) -> tuple[Question, list, list]:
    """(the question, its vector list, its BM25 list) over its answer types."""
    store, k = session.store, max(POOL, session.settings.ask.k)
    target = q.extras.get("target_type") or guess_target_type(q.query, session.schema)
    types = answer_types(target or None, session.schema)
    qvec = query_vector(store, session.embedder, q.query)
    return (q, vss_strand(store, qvec, types, k),
            bm25(store, q.query, params=session.settings.bm25, types=types, k=k))


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


def _mrrs(session: Session, lists: list[tuple[Question, list, list]],
          weight: float) -> list[float]:
    ranking = replace(session.settings.ranking, dense=weight)
    k = session.settings.ask.k
    ids = sorted({n for _, vss, lex in lists for n, _ in vss + lex})
    ext = {i: str(d.ext_id) for i, d in session.store.node_details(ids).items()}
    out = []
    for q, vss, lex in lists:
        ranked = [ext[c.node_id] for c in fuse_hybrid(vss, lex, k, ranking)]
        out.append(question_metrics(ranked, q.answer_ids)["mrr"])
    return out
