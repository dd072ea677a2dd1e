"""``afr embed`` on a Spark store: the node documents embedded by Spark's executors.

The documents are built as on every store (``DocumentBuilder``, on the driver); each chunk
of the store's ``document_batch`` nodes becomes one Spark job whose tasks (``mapInPandas``) make the
configured embedder from its spec string once per Python worker and embed their rows
batch by batch. The vectors are written by the executors as a new Parquet part of the
variant's table, one transaction per chunk: an interrupted run keeps every finished
chunk, and the next run embeds only the nodes still without a vector.

Only embedders a spec string recreates without secrets are sent to executors (the
built-in ``hash``, ``st:``, ``m2v:``); an ``openai:`` embedder waits on a remote service
anyway and embeds on the driver, as on the other stores.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from functools import cache
from typing import TYPE_CHECKING

import numpy as np

from afr.embed.base import Embedder, embed_texts, known_dim
from afr.embed.spec import make_embedder, spec_from_model_id

if TYPE_CHECKING:
    import pandas as pd
    from pyspark.sql import DataFrame, SparkSession

_EXECUTOR_KINDS = ("hash", "st", "m2v", "onnx")


def executor_spec(embedder: Embedder) -> str | None:
    """The spec executors make ``embedder`` from, or None when it stays on the driver
    (a remote API, or a dimension known only after a first reply)."""
    dim = known_dim(embedder)
    if dim is None:
        return None
    spec = spec_from_model_id(embedder.model_id, dim)
    return spec if spec.partition(":")[0] in _EXECUTOR_KINDS else None


@cache
def _worker_embedder(spec: str) -> Embedder:
    """One embedder per Python worker process (a model loads once, not per task)."""
    return make_embedder(spec)


def _embed_task(spec: str, batch_size: int
                ) -> Callable[[Iterator[pd.DataFrame]], Iterator[pd.DataFrame]]:
    def embed_rows(batches: Iterator[pd.DataFrame]) -> Iterator[pd.DataFrame]:
        import pandas as pd

        embedder = _worker_embedder(spec)
        for batch in batches:
            ids = batch["node_id"].to_numpy(np.int64)
            texts = batch["text"].tolist()
            for start in range(0, len(ids), batch_size):
                vectors = embed_texts(embedder, texts[start:start + batch_size])
                yield pd.DataFrame({"node_id": ids[start:start + batch_size],
                                    "vec": list(vectors)})
    return embed_rows


def embedded_frame(session: SparkSession, spec: str, ids: list[int], texts: list[str], *,
                   batch_size: int) -> DataFrame:
    """The vectors of the documents ``texts`` (of nodes ``ids``) as a DataFrame the
    executors compute when it is written: columns (node_id, vec)."""
    import pandas as pd

    documents = session.createDataFrame(
        pd.DataFrame({"node_id": np.asarray(ids, np.int64), "text": texts}),
        "node_id BIGINT, text STRING")
    return documents.mapInPandas(_embed_task(spec, batch_size),
                                 "node_id BIGINT, vec ARRAY<FLOAT>")
