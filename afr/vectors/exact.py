"""Exact mode: a store whose vector searches never use an approximate index.

PostgreSQL answers large searches from its HNSW index, which may miss a few of the true
top k. A store put in exact mode (``afr ask --exact``, the setting ``vectors.exact_search``) answers
every search exactly — from in-memory matrices where ``afr.vectors.memory`` keeps them,
else by a full scan — so that it ranks exactly as a DuckDB store with the same vectors.
"""

from __future__ import annotations

from afr.store.base import Store


def use_exact_search(store: Store, exact: bool = True) -> None:
    """Let ``store`` answer its vector searches exactly (or approximately again)."""
    store.runtime.exact_search = exact


def exact_search(store: Store) -> bool:
    """Whether ``store`` is in exact mode (stores without approximate indexes always are)."""
    return not store.builds_vector_indexes or store.runtime.exact_search
