"""Embedder specs: ``hash[:DIM]``, ``openai:MODEL``, ``st:NAME_OR_PATH``, ``m2v:PATH``,
``onnx:DIR`` → an embedder, and
the spec that recreates the embedder a store's vectors were made with."""

from __future__ import annotations

from typing import Any

from afr.embed.base import Embedder
from afr.embed.hashing import HashingEmbedder
from afr.errors import EmbeddingError
from afr.settings import EmbedSettings, LLMSettings
from afr.store.base import Store

Endpoint = tuple[str | None, str | None]  # (base URL, API key)

SPEC_HELP = "'hash' or 'hash:DIM', 'openai:MODEL', 'st:NAME_OR_PATH', 'm2v:PATH', 'onnx:DIR'"


def make_embedder(spec: str, endpoint: Endpoint | None = None, **kw: Any) -> Embedder:
    """An embedder from a spec string (see SPEC_HELP); ``endpoint``: where ``openai:…``
    embeds (``embedding_endpoint``)."""
    kind, _, arg = spec.partition(":")
    if kind == "hash":
        try:
            return HashingEmbedder(int(arg) if arg else 384)
        except ValueError:
            raise EmbeddingError(f"bad embedder spec {spec!r}: use {SPEC_HELP}") from None
    if kind == "openai" and arg:
        from afr.embed.openai_embed import OpenAIEmbedder

        base_url, api_key = endpoint or (None, None)
        return OpenAIEmbedder(base_url=kw.pop("base_url", None) or base_url, model=arg,
                              api_key=kw.pop("api_key", None) or api_key, **kw)
    if kind == "st" and arg:
        from afr.embed.st_embed import SentenceTransformerEmbedder

        return SentenceTransformerEmbedder(arg)
    if kind == "m2v" and arg:
        from afr.embed.static_embed import StaticEmbedder

        return StaticEmbedder(arg)
    if kind == "onnx" and arg:
        from afr.embed.onnx_embed import OnnxEmbedder

        return OnnxEmbedder(arg)
    raise EmbeddingError(f"unknown embedder {spec!r}: use {SPEC_HELP}")


def spec_from_model_id(model_id: str, dim: int) -> str:
    """The `--model` spec that recreates the embedder recorded as ``model_id``."""
    if model_id.startswith("hash"):
        return f"hash:{dim}"
    return model_id  # "openai:…", "st:…", "m2v:…", "onnx:…" are specs already


def spec_for_store(store: Store) -> str | None:
    for variant in ("doc", "doc_rel"):
        recorded = store.embedding_model(variant)
        if recorded:
            return spec_from_model_id(*recorded)
    return None


def embedding_endpoint(embed: EmbedSettings, llm: LLMSettings) -> Endpoint:
    """(base URL, API key) of ``openai:…`` embedders: the [embed] settings
    ($AFR_EMBED_BASE_URL, $AFR_EMBED_API_KEY), else the LLM's."""
    if embed.base_url and embed.api_key:
        return embed.base_url, embed.api_key
    return embed.base_url or llm.base_url, embed.api_key or llm.api_key


def embedder_for_store(store: Store, endpoint: Endpoint | None = None) -> Embedder:
    spec = spec_for_store(store)
    if spec is None:
        raise EmbeddingError(
            f"the store {store.location} has no vectors yet; run 'afr embed' first"
        )
    embedder = make_embedder(spec, endpoint)
    recorded = store.embedding_model("doc") or store.embedding_model("doc_rel")
    if recorded and embedder.model_id != recorded[0]:
        raise EmbeddingError(
            f"the store's vectors were made by {recorded[0]}, which afr cannot recreate "
            f"from the spec {spec!r}"
        )
    return embedder
