"""How much each signal counts when vector similarity and BM25 are fused: the dense
weight in force for a store, and where it came from.

Unless the settings name one (``ranking.dense``), the weight is the one ``afr index
--calibrate`` measured on questions for the store's embedder (kept in afr_meta under
``fusion_dense:<model id>``), else the embedder's own (``afr.embed.fusion_weight``: a
tie-breaker for the built-in hash embedder, 0.01 for semantic embedders: BM25 leads).
"""

from __future__ import annotations

import json
from dataclasses import dataclass

from afr.embed import Embedder, fusion_weight
from afr.embed.base import DENSE_WEIGHT
from afr.settings import RankingSettings
from afr.store.base import Store

KEY = "fusion_dense:{model}"


@dataclass(frozen=True)
class DenseWeight:
    weight: float
    source: str  # for people: "settings", "calibrated on dev.csv (47 questions)", …


def dense_of(ranking: RankingSettings) -> float:
    """``ranking.dense`` as the fusion uses it: resolved for a store when a session opens
    (``afr.pipeline.open_session``); unresolved, as much as BM25."""
    return ranking.dense if ranking.dense is not None else DENSE_WEIGHT


def dense_trust(ranking: RankingSettings) -> float:
    """How far the fusion trusts the embedder, 0 to 1: the dense weight against full
    trust (as much as BM25, ``DENSE_WEIGHT``). Scales fixed weights set for a fully trusted
    embedder, such as SAGE's pruning."""
    return min(1.0, dense_of(ranking) / DENSE_WEIGHT)


def dense_weight(store: Store, embedder: Embedder, ranking: RankingSettings) -> DenseWeight:
    """The weight of vector similarity beside BM25 for this store and embedder."""
    if ranking.dense is not None:
        return DenseWeight(ranking.dense, "the settings")
    measured = store.meta_fact(KEY.format(model=embedder.model_id))
    if measured:
        record = json.loads(measured)
        return DenseWeight(float(record["weight"]),
                           f"calibrated on {record['questions']} questions of "
                           f"{record['source']}")
    return DenseWeight(fusion_weight(embedder), f"the {embedder.model_id} embedder's own")


def record_calibration(store: Store, embedder: Embedder, weight: float, *, source: str,
                       questions: int, grid: dict[str, float]) -> None:
    """Keep a measured weight for the store's embedder (``afr index --calibrate``)."""
    with store.transaction():
        store.set_meta(KEY.format(model=embedder.model_id), json.dumps(
            {"weight": weight, "source": source, "questions": questions, "mrr": grid}))
