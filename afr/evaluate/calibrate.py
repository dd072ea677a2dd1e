"""`afr index --calibrate`: the dense weight of the store's embedder, measured on questions.

For each question the vector list and the BM25 list over its answer type (the question
file's ``target_type`` column, else the type the question names) are fused with every
weight of ``GRID``; the weight with the best mean MRR of the ``hybrid`` list (the smallest
of equals) is kept for the store's embedder (``afr.retrieval.weights``) and used by every
fusion of vector similarity and BM25 from then on, unless the settings name one.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

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
    mrr = {w: _mean_mrr(session, lists, w) for w in GRID}
    best = max(GRID, key=lambda w: (round(mrr[w], 9), -w))
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


def _mean_mrr(session: Session, lists: list[tuple[Question, list, list]],
              weight: float) -> float:
    ranking = replace(session.settings.ranking, dense=weight)
    k = session.settings.ask.k
    ids = sorted({n for _, vss, lex in lists for n, _ in vss + lex})
    ext = {i: str(d.ext_id) for i, d in session.store.node_details(ids).items()}
    total = 0.0
    for q, vss, lex in lists:
        ranked = [ext[c.node_id] for c in fuse_hybrid(vss, lex, k, ranking)]
        total += question_metrics(ranked, q.answer_ids)["mrr"]
    return total / len(lists)
