"""The similarity graph's kNN as Spark jobs: the kernels of ``afr.vectors.knn``, run by
the executors of a Spark store's session.

Exact: the rows are cut into blocks of ``chunk_rows`` (the same blocks as on one
machine, so the same matrix products and the same neighbours); each task takes blocks
and scores them against all rows, which every executor holds once (a broadcast).
LSH: the executors compute each row's bucket in every table; the rows are shuffled by
(table, bucket), each bucket scored within itself, and a window keeps each row's ``k``
best. The vectors travel once per executor; what comes back is ``n × k`` row pairs.
The broadcast bounds the size: every executor holds the ``n × dim`` float32 matrix
(30,000 × 384: 44 MB).
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING

import numpy as np

from afr.vectors.knn import (
    LshParams,
    Neighbours,
    block_neighbours,
    bucket_codes,
    bucket_slices,
    chunk_rows,
    hyperplanes,
    within_bucket,
)

if TYPE_CHECKING:
    import pandas as pd
    from pyspark.sql import SparkSession

# Buckets are scored in groups of (table, bucket mod SHARDS): one Python call per group
# of buckets, not per bucket (tens of thousands of small buckets at MAG-like size).
SHARDS = 64
# Tasks per core: blocks differ in cost (the last is short), more tasks even the load.
TASKS_PER_CORE = 2


def _tasks(session: SparkSession, units: int) -> int:
    return max(1, min(units, session.sparkContext.defaultParallelism * TASKS_PER_CORE))


def exact_neighbours(session: SparkSession, vectors: np.ndarray, k: int, *,
                     chunk_mb: float) -> Neighbours:
    """Every row's exact ``k`` nearest rows, block by block as Spark tasks."""
    n = len(vectors)
    k = min(k, n - 1)
    if n < 2 or k < 1:
        return Neighbours(np.empty(0, np.int64), np.empty(0, np.int64))
    chunk = chunk_rows(n, chunk_mb)
    blocks = -(-n // chunk)
    shared = session.sparkContext.broadcast(np.ascontiguousarray(vectors, np.float32))

    def score_blocks(batches: Iterator[pd.DataFrame]) -> Iterator[pd.DataFrame]:
        import pandas as pd

        matrix = shared.value
        for batch in batches:
            for block in batch["id"].tolist():
                start = int(block) * chunk
                found = block_neighbours(matrix[start:start + chunk], start, matrix, k)
                yield pd.DataFrame({"src": found.src, "dst": found.dst})

    try:
        frame = session.range(0, blocks, numPartitions=_tasks(session, blocks)) \
            .mapInPandas(score_blocks, "src BIGINT, dst BIGINT")
        rows = frame.toPandas()
    finally:
        shared.unpersist()
    return Neighbours(rows["src"].to_numpy(np.int64), rows["dst"].to_numpy(np.int64))


def lsh_neighbours(session: SparkSession, vectors: np.ndarray, k: int, params: LshParams
                   ) -> Neighbours:
    """Every row's ``k`` nearest rows among those sharing an LSH bucket with it, as the
    one-machine ``afr.vectors.knn.lsh_neighbours`` finds them, in Spark jobs."""
    from pyspark.sql import Window
    from pyspark.sql import functions as F

    n = len(vectors)
    if n < 2 or k < 1:
        return Neighbours(np.empty(0, np.int64), np.empty(0, np.int64))
    params = params.for_size(n, k)
    shared = session.sparkContext.broadcast(np.ascontiguousarray(vectors, np.float32))
    planes = session.sparkContext.broadcast(hyperplanes(vectors.shape[1], params))
    codes = session.range(0, n, numPartitions=_tasks(session, n)) \
        .mapInPandas(_coder(shared, planes), "row BIGINT, tab INT, code BIGINT")
    pairs = codes.withColumn("shard", F.col("code") % SHARDS) \
        .groupBy("tab", "shard") \
        .applyInPandas(_bucket_scorer(shared, k, params.bucket_max),
                       "src BIGINT, dst BIGINT, score FLOAT")
    best = pairs.groupBy("src", "dst").agg(F.max("score").alias("score"))
    rank = F.row_number().over(Window.partitionBy("src").orderBy(F.desc("score"), "dst"))
    try:
        rows = best.withColumn("rank", rank).where(F.col("rank") <= k) \
            .select("src", "dst").toPandas()
    finally:
        shared.unpersist()
        planes.unpersist()
    return Neighbours(rows["src"].to_numpy(np.int64), rows["dst"].to_numpy(np.int64))


def _coder(shared, planes):
    """The task that gives each row of its range its bucket in every table."""
    def code_rows(batches: Iterator[pd.DataFrame]) -> Iterator[pd.DataFrame]:
        import pandas as pd

        matrix, hyper = shared.value, planes.value
        tables = hyper.shape[0]
        for batch in batches:
            rows = batch["id"].to_numpy(np.int64)
            codes = bucket_codes(matrix[rows], hyper)
            yield pd.DataFrame({"row": np.repeat(rows, tables),
                                "tab": np.tile(np.arange(tables, dtype=np.int32), len(rows)),
                                "code": codes.reshape(-1)})
    return code_rows


def _bucket_scorer(shared, k: int, bucket_max: int):
    """The task that scores the buckets of one (table, shard) group, each within itself."""
    def score(group: pd.DataFrame) -> pd.DataFrame:
        import pandas as pd

        matrix = shared.value
        group = group.sort_values(["code", "row"], kind="stable")
        found = []
        for _, rows in group.groupby("code", sort=False)["row"]:
            for part in bucket_slices(rows.to_numpy(np.int64), bucket_max):
                found.append(within_bucket(part, matrix, k))
        if not found:
            return pd.DataFrame({"src": [], "dst": [], "score": []})
        src, dst, scores = (np.concatenate(c) for c in zip(*found, strict=True))
        return pd.DataFrame({"src": src, "dst": dst, "score": scores})
    return score
