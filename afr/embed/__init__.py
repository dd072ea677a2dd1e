"""Embedders: the ``Embedder`` protocol, the built-in hashing embedder, OpenAI-compatible
services, sentence-transformers, static (model2vec) models, and the spec strings that name
them."""

from afr.embed.base import Embedder, embed_texts, fusion_weight, hybrid_fusion_weight
from afr.embed.hashing import HashingEmbedder
from afr.embed.spec import (
    SPEC_HELP,
    embedder_for_store,
    embedding_endpoint,
    make_embedder,
    spec_for_store,
)

__all__ = ["SPEC_HELP", "Embedder", "HashingEmbedder", "embed_texts", "embedder_for_store",
           "embedding_endpoint", "fusion_weight", "hybrid_fusion_weight",
           "make_embedder", "spec_for_store"]
