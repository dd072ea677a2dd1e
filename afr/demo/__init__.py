"""The bundled demo SKB as a ready store (loaded and embedded on first use), and the one
rule for which store a command works on (``open_store_for``)."""

from __future__ import annotations

import csv
from pathlib import Path

from afr.errors import StoreError
from afr.resources import demo_skb_dir, demo_store_path
from afr.store import DEFAULT_DB, DuckDBStore, Store, chosen_db, is_postgres_url, open_store

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
    # Building the demo is rare: commands that only open a store do not import the loader.
    from afr.embed import make_embedder
    from afr.load import load_skb_dir
    from afr.vectors import embed_store

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


def open_store_for(db: str | Path | None = None, *, schema: str | None = None,
                   write: bool = False, read_only: bool = False,
                   progress: bool = False) -> Store:
    """The store a command works on: ``db``, else ``$AFR_DB``, else ``./afr.duckdb``.

    A command that only reads (``write=False``: ask, cypher, eval, info, sql) falls back
    to the bundled demo store, set up on first use, when nothing was chosen and there is
    no ``./afr.duckdb``. ``read_only`` opens the store without write access."""
    target = chosen_db(db)
    if target is None:
        target = DEFAULT_DB
        if not write and not Path(DEFAULT_DB).exists():
            target = str(ensure_demo_store(progress=progress))
    return open_store(target, schema=schema, read_only=read_only)


def setup_demo(db: str | Path | None = None, *, rebuild: bool = False,
               progress: bool = False) -> Path:
    """``afr demo``: the demo store at the chosen DuckDB file (``db``, else ``$AFR_DB``),
    else in the cache; a PostgreSQL URL is not a place for it, so the cache is used."""
    target = chosen_db(db)
    path = Path(target).expanduser() if target and not is_postgres_url(target) else None
    return ensure_demo_store(path, rebuild=rebuild, progress=progress)


def example_question() -> str | None:
    """The first question of the demo's questions.csv (a first thing to ask)."""
    questions = demo_skb_dir() / "questions.csv"
    if not questions.is_file():
        return None
    with open(questions, encoding="utf-8", newline="") as fh:
        first = next(csv.DictReader(fh), None)
    return first["query"] if first else None
