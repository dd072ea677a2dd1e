"""Helpers for tests that need the PostgreSQL server itself (restarts)."""

from __future__ import annotations

from pathlib import Path


def pgdata_of(url: str) -> Path | None:
    """pgserver's URLs name its data directory as the socket host; None for other URLs."""
    if "host=" not in url:
        return None
    path = Path(url.split("host=", 1)[1].split("&")[0])
    return path if (path / "postmaster.pid").exists() else None
