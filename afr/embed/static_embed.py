"""Static embeddings (model2vec; optional extra: `pip install 'afr[fast]'`): one vector per
token, a text's vector is their weighted mean. No transformer runs, so embedding is a
tokenisation and a lookup — thousands of nodes a second on two cores — from a model folder
distilled once from a sentence-transformers model (``python -m afr.embed.distill``)."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import numpy as np

from afr.errors import EmbeddingError

FAST_HINT = "pip install 'afr[fast]'"
MAX_TOKENS = 512  # a static model's cost grows with tokens only linearly: keep long texts


def model_folder(path: str) -> Path:
    """The absolute folder of a static model, checked: a missing folder would otherwise
    send model2vec to the model hub, and afr embeds offline."""
    folder = Path(path).expanduser().resolve()
    if not (folder / "config.json").is_file():
        raise EmbeddingError(f"no static model at {path!r} (a folder with config.json; "
                             "distil one with: python -m afr.embed.distill SOURCE_MODEL OUT)")
    return folder


class StaticEmbedder:
    # A query is embedded in microseconds: cheaper than the store's query cache.
    cache_queries = False

    def __init__(self, path: str, batch_size: int = 1024) -> None:
        folder = model_folder(path)
        try:
            from model2vec import StaticModel
        except ImportError:
            raise EmbeddingError(f"model2vec is not installed: {FAST_HINT}") from None
        try:
            self._model = StaticModel.from_pretrained(folder, normalize=True)
        except Exception as exc:  # noqa: BLE001 - corrupt or foreign files
            raise EmbeddingError(f"cannot load the static model at {str(folder)!r}: "
                                 f"{type(exc).__name__}") from None
        # the absolute folder: `afr ask` run from elsewhere recreates the same embedder
        self.model_id = f"m2v:{folder}"
        self.batch_size = batch_size

    @property
    def dim(self) -> int:
        return int(self._model.dim)

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        if not texts:
            return np.zeros((0, self.dim), dtype=np.float32)
        # one process: `afr embed` hands over batches, and forking workers costs more
        vectors = self._model.encode(list(texts), batch_size=self.batch_size,
                                     max_length=MAX_TOKENS, use_multiprocessing=False)
        # a text without tokens comes back as zeros (model2vec's own guard), never NaN
        return np.asarray(vectors, dtype=np.float32)
