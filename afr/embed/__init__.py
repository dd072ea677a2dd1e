"""Embedders: the built-in hashing one, OpenAI-compatible services, sentence-transformers."""

from __future__ import annotations

import os
from typing import Any

from afr.embed.hashing import HashingEmbedder
from afr.errors import EmbeddingError

SPEC_HELP = "'hash' or 'hash:DIM', 'openai:MODEL', 'st:NAME_OR_PATH'"


def make_embedder(spec: str, **kw: Any):
    """An embedder from a spec string (see SPEC_HELP)."""
    kind, _, arg = spec.partition(":")
    if kind == "hash":
        try:
            return HashingEmbedder(int(arg) if arg else 384)
        except ValueError:
            raise EmbeddingError(f"bad embedder spec {spec!r}: use {SPEC_HELP}") from None
    if kind == "openai" and arg:
        from afr.embed.openai_embed import OpenAIEmbedder

        base_url = kw.pop("base_url", None) or os.environ.get("AFR_EMBED_BASE_URL") \
            or os.environ.get("AFR_LLM_BASE_URL")
        api_key = kw.pop("api_key", None) or os.environ.get("AFR_EMBED_API_KEY") \
            or os.environ.get("AFR_LLM_API_KEY") or os.environ.get("OPENAI_API_KEY")
        return OpenAIEmbedder(base_url=base_url, model=arg, api_key=api_key, **kw)
    if kind == "st" and arg:
        from afr.embed.st_embed import SentenceTransformerEmbedder

        return SentenceTransformerEmbedder(arg)
    raise EmbeddingError(f"unknown embedder {spec!r}: use {SPEC_HELP}")


__all__ = ["HashingEmbedder", "make_embedder"]
