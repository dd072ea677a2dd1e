"""Which embedder serves a store: the one its vectors were made with."""

from __future__ import annotations

from afr.errors import EmbeddingError
from afr.store.base import Store


def spec_from_model_id(model_id: str, dim: int) -> str:
    """The `--model` spec that recreates the embedder recorded as ``model_id``."""
    if model_id.startswith("hash"):
        return f"hash:{dim}"
    return model_id  # "openai:…", "st:…" are specs already


def spec_for_store(store: Store) -> str | None:
    for variant in ("doc", "doc_rel"):
        recorded = store.embedding_model(variant)
        if recorded:
            return spec_from_model_id(*recorded)
    return None


def embedder_for_store(store: Store):
    from afr.embed import make_embedder

    spec = spec_for_store(store)
    if spec is None:
        raise EmbeddingError(
            f"the store {store.location} has no vectors yet; run 'afr embed' first"
        )
    embedder = make_embedder(spec)
    recorded = store.embedding_model("doc") or store.embedding_model("doc_rel")
    if recorded and embedder.model_id != recorded[0]:
        raise EmbeddingError(
            f"the store's vectors were made by {recorded[0]}, which afr cannot recreate "
            f"from the spec {spec!r}"
        )
    return embedder
