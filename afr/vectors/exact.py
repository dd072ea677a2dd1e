"""Exact mode: a store whose vector searches never use an approximate index.

PostgreSQL answers large searches from its HNSW index, which may miss a few of the true
top k. A store put in exact mode (``afr ask --exact``, ``AskConfig.exact_search``) answers
every search exactly — from in-memory matrices where ``afr.vectors.memory`` keeps them,
else by a full scan — so that it ranks exactly as a DuckDB store with the same vectors.
"""

from __future__ import annotations

import weakref

from afr.store.base import Store

_EXACT: weakref.WeakSet[Store] = weakref.WeakSet()


def use_exact_search(store: Store, exact: bool = True) -> None:
    """Let ``store`` answer its vector searches exactly (or approximately again)."""
    if exact:
        _EXACT.add(store)
    else:
        _EXACT.discard(store)


def exact_search(store: Store) -> bool:
    """Whether ``store`` is in exact mode (stores without approximate indexes always are)."""
    return not store.builds_vector_indexes or store in _EXACT
