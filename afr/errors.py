"""Errors afr reports to users.

Every error a user can cause (bad input, unreachable services, broken files) is an
``AfrError``: the CLI prints its message on one line and exits non-zero, no traceback.
"""

from __future__ import annotations


class AfrError(Exception):
    """Base class: a problem to report to the user in one line."""

    exit_code = 1

    def __str__(self) -> str:
        # One line, always: multi-line details are folded so the CLI stays tidy.
        return " ".join(super().__str__().split())


class StoreError(AfrError):
    """The store cannot be opened, is locked, has the wrong schema version …"""


class StoreLockedError(StoreError):
    """Another process holds the store's DuckDB file: a writer (nobody else may open it)
    or readers (others may open it to read, not to write)."""

    def __init__(self, message: str, *, pid: int | None = None,
                 readers_only: bool = False) -> None:
        super().__init__(message)
        self.pid = pid
        self.readers_only = readers_only


class StoreConnectionError(StoreError):
    """The connection to the database server was lost (restart, terminated backend)."""


class LoadError(AfrError):
    """An SKB cannot be loaded (broken file, unknown type, dangling edge …)."""


class SchemaError(AfrError):
    """A name (node type, edge type, attribute) is not part of the SKB schema."""


class EmbeddingError(AfrError):
    """Embeddings are missing, mismatched, or the embedding service failed."""


class LLMError(AfrError):
    """The LLM endpoint failed (unreachable, timed out, refused, bad reply)."""
