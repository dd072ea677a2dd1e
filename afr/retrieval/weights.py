"""How much each signal counts when vector similarity and BM25 are fused: the weights in
force for a store, and where they came from.

Two weights, one per kind of fusion: ``ranking.dense`` in the reciprocal rank fusions
(steps 6–7, KAR, SAGE's seeds) and ``ranking.hybrid_dense`` in the hybrid list, fused
linearly after min-max normalising each list's scores. Unless the settings name one, each
is the one ``afr index --calibrate`` measured on questions for the store's embedder (kept
in afr_meta under ``fusion_dense:<model id>`` and ``hybrid_dense:<model id>``), else the
embedder's own (``afr.embed.fusion_weight``: a tie-breaker for the built-in hash
embedder, 0.01 for semantic embedders, BM25 leading; ``afr.embed.hybrid_fusion_weight``:
0.3 and 0.1).
"""

from __future__ import annotations

import json
from dataclasses import dataclass

from afr.embed import Embedder, fusion_weight, hybrid_fusion_weight
from afr.embed.base import DENSE_WEIGHT
from afr.settings import RankingSettings
from afr.store.base import Store

KEY = "fusion_dense:{model}"
HYBRID_KEY = "hybrid_dense:{model}"


@dataclass(frozen=True)
class DenseWeight:
    weight: float
    source: str  # for people: "settings", "calibrated on dev.csv (47 questions)", …


def dense_of(ranking: RankingSettings) -> float:
    """``ranking.dense`` as the fusion uses it: resolved for a store when a session opens
    (``afr.pipeline.open_session``); unresolved, as much as BM25."""
    return ranking.dense if ranking.dense is not None else DENSE_WEIGHT


def hybrid_dense_of(ranking: RankingSettings) -> float:
    """``ranking.hybrid_dense`` as the hybrid list uses it (unresolved: as much as BM25)."""
    return ranking.hybrid_dense if ranking.hybrid_dense is not None else DENSE_WEIGHT


def dense_trust(ranking: RankingSettings) -> float:
    """How far the fusion trusts the embedder, 0 to 1: the dense weight against full
    trust (as much as BM25, ``DENSE_WEIGHT``). Scales fixed weights set for a fully trusted
    embedder, such as SAGE's pruning."""
    return min(1.0, dense_of(ranking) / DENSE_WEIGHT)


def dense_weight(store: Store, embedder: Embedder, ranking: RankingSettings) -> DenseWeight:
    """The weight of vector similarity beside BM25 in the reciprocal rank fusions."""
    return _weight(store, KEY.format(model=embedder.model_id), ranking.dense,
                   fusion_weight(embedder), embedder)


def hybrid_dense_weight(store: Store, embedder: Embedder, ranking: RankingSettings
                        ) -> DenseWeight:
    """The weight of vector similarity beside BM25 in the hybrid list."""
    return _weight(store, HYBRID_KEY.format(model=embedder.model_id), ranking.hybrid_dense,
                   hybrid_fusion_weight(embedder), embedder)


def _weight(store: Store, key: str, setting: float | None, own: float,
            embedder: Embedder) -> DenseWeight:
    if setting is not None:
        return DenseWeight(setting, "the settings")
    measured = store.meta_fact(key)
    if measured:
        record = json.loads(measured)
        return DenseWeight(float(record["weight"]),
                           f"calibrated on {record['questions']} questions of "
                           f"{record['source']}")
    return DenseWeight(own, f"the {embedder.model_id} embedder's own")


def record_calibration(store: Store, embedder: Embedder, weight: float, *, source: str,
                       questions: int, grid: dict[str, float], hybrid: float | None = None,
                       hybrid_grid: dict[str, float] | None = None) -> None:
    """Keep measured weights for the store's embedder (``afr index --calibrate``): the
    reciprocal rank fusions' ``weight`` and, when given, the hybrid list's ``hybrid``."""
    with store.transaction():
        store.set_meta(KEY.format(model=embedder.model_id), json.dumps(
            {"weight": weight, "source": source, "questions": questions, "mrr": grid}))
        if hybrid is not None:
            store.set_meta(HYBRID_KEY.format(model=embedder.model_id), json.dumps(
                {"weight": hybrid, "source": source, "questions": questions,
                 "mrr": hybrid_grid or {}}))
