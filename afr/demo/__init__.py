"""The bundled demo SKB as a ready store: loaded and embedded on first use."""

from __future__ import annotations

from pathlib import Path

from afr.errors import StoreError
from afr.load import load_skb_dir
from afr.resources import demo_skb_dir, demo_store_path
from afr.store import DuckDBStore
from afr.vectors import embed_store

DEMO_EMBEDDER = "hash"


def demo_ready(path: Path | None = None) -> bool:
    path = path or demo_store_path()
    if not path.exists():
        return False
    try:
        store = DuckDBStore(path, read_only=True)
    except StoreError:
        return False
    try:
        return bool(store.skb_name()) and store.embedding_model("doc_rel") is not None
    finally:
        store.close()


def ensure_demo_store(path: Path | None = None, *, rebuild: bool = False,
                      progress: bool = True) -> Path:
    """Load and embed the demo SKB into ``path`` (default: the cache) unless it is there."""
    from afr.embed import make_embedder

    path = path or demo_store_path()
    if demo_ready(path) and not rebuild:
        return path
    skb = demo_skb_dir()
    if not (skb / "skb.json").is_file():
        raise StoreError(f"the demo SKB is missing from this installation ({skb})")
    store = DuckDBStore(path)
    try:
        load_skb_dir(store, skb, replace=True, progress=progress)
        embed_store(store, make_embedder(DEMO_EMBEDDER), progress=progress)
    finally:
        store.close()
    return path
