"""sentence-transformers models (the optional extra ``st``)."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from afr.errors import EmbeddingError
from afr.resources import install_command


class SentenceTransformerEmbedder:
    def __init__(self, model_name_or_path: str, batch_size: int = 64) -> None:
        try:
            from sentence_transformers import SentenceTransformer
        except ImportError:
            raise EmbeddingError("sentence-transformers is not installed: "
                                 f"{install_command('st')}") from None
        try:
            self._model = SentenceTransformer(model_name_or_path)
        except Exception as exc:  # noqa: BLE001 - missing files, no network, bad name …
            raise EmbeddingError(f"cannot load sentence-transformers model "
                                 f"{model_name_or_path!r}: {type(exc).__name__}") from None
        self.model_id = f"st:{model_name_or_path}"
        self.batch_size = batch_size
        # renamed in sentence-transformers 5.x; the old name warns there
        dim_of = getattr(self._model, "get_embedding_dimension", None) or \
            self._model.get_sentence_embedding_dimension
        self._dim = int(dim_of())

    @property
    def dim(self) -> int:
        return self._dim

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        vectors = self._model.encode(list(texts), batch_size=self.batch_size,
                                     normalize_embeddings=True, show_progress_bar=False)
        return np.asarray(vectors, dtype=np.float32)
