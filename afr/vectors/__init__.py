"""Vectors: node documents, index building (embedding), search, in-memory matrices.

The package imports its modules on first use: every command that opens a store checks
the demo's ``DOCUMENTS_VERSION`` (afr.vectors.documents) and should not pay for numpy.
The search function is ``afr.vectors.search.search`` (the module has the same name)."""

from __future__ import annotations

from afr.lazy import lazy_exports

_EXPORTS = {
    "build_documents": "afr.vectors.documents",
    "EmbedReport": "afr.vectors.index",
    "check_model": "afr.vectors.index",
    "embed_store": "afr.vectors.index",
    "query_vector": "afr.vectors.search",
    "build_similarity_graph": "afr.vectors.similarity",
    "similarity_meta": "afr.vectors.similarity",
    "similarity_state": "afr.vectors.similarity",
    "KnnChoice": "afr.vectors.similarity",
    "LshParams": "afr.vectors.knn",
    "recall_at_k": "afr.vectors.knn",
}

__getattr__ = lazy_exports("afr.vectors", _EXPORTS)


__all__ = ["EmbedReport", "KnnChoice", "LshParams", "build_documents", "build_similarity_graph", "check_model",
           "embed_store", "query_vector", "recall_at_k", "similarity_meta",
           "similarity_state"]
