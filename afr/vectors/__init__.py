"""Vectors: node documents, index building (embedding), search, in-memory matrices."""

from afr.vectors.documents import build_documents
from afr.vectors.index import EmbedReport, check_model, embed_store
from afr.vectors.search import query_vector, search

__all__ = ["EmbedReport", "build_documents", "check_model", "embed_store", "query_vector",
           "search"]
