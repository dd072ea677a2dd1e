"""The bundled demo SKB as a ready store (loaded and embedded on first use), and the one
rule for which store a command works on (``open_store_for``)."""

from __future__ import annotations

import csv
from pathlib import Path

from afr.errors import StoreError
from afr.lexical import has_lexical_index
from afr.resources import demo_skb_dir
from afr.settings import StoreSettings, cache_dir
from afr.store import DEFAULT_DB, DuckDBStore, Store, is_store_url, open_store
from afr.store.base import SCHEMA_VERSION
from afr.vectors.documents import DOCUMENTS_VERSION

DEMO_EMBEDDER = "hash"
# afr_meta key: the node-document format the demo store's vectors were built from. A store
# built by an afr whose documents read differently is stale and is built again.
DOCUMENTS_VERSION_KEY = "documents_version"


def demo_store_path(settings: StoreSettings) -> Path:
    """Where the demo store lives: the cache folder's demo.duckdb."""
    return cache_dir(settings) / "demo.duckdb"


def demo_ready(path: Path) -> bool:
    if not path.exists():
        return False
    try:
        store = DuckDBStore(path, read_only=True)
    except StoreError:
        return False
    try:
        return _holds_ready_demo(store)
    finally:
        store.close()


def _holds_ready_demo(store: Store) -> bool:
    # A demo of an older schema is built again: it lacks what newer methods need (the
    # similarity graph is built with the demo since schema 7), as is one loaded before
    # loads recorded which node types each edge type connects (the grounding's checks).
    return (store.schema_version() == SCHEMA_VERSION and bool(store.skb_name())
            and store.embedding_model("doc_rel") is not None
            and store.get_meta(DOCUMENTS_VERSION_KEY) == DOCUMENTS_VERSION
            and store.get_meta("skb_edge_pairs") is not None
            and has_lexical_index(store))


def _open_ready_demo(path: Path, read_only: bool) -> Store | None:
    """The demo store at ``path``, opened as the command wants it, when it is built and
    current (one open: a cold command pays for one connection, not two); else None."""
    if not path.exists():
        return None
    try:
        store = DuckDBStore(path, read_only=read_only, create=False)
    except StoreError:
        return None
    try:
        if _holds_ready_demo(store):
            return store
    except BaseException:
        store.close()
        raise
    store.close()
    return None


def ensure_demo_store(path: Path, *, rebuild: bool = False, progress: bool = True) -> Path:
    """Load and embed the demo SKB into ``path`` unless it is there."""
    # Building the demo is rare: commands that only open a store do not import the loader.
    from afr.embed import make_embedder
    from afr.lexical.index import build_lexical_index
    from afr.load import load_skb_dir
    from afr.vectors import embed_store
    from afr.vectors.similarity import build_similarity_graph

    if demo_ready(path) and not rebuild:
        return path
    skb = demo_skb_dir()
    if not (skb / "skb.json").is_file():
        raise StoreError(f"the demo SKB is missing from this installation ({skb})")
    store = DuckDBStore(path)
    try:
        load_skb_dir(store, skb, replace=True, progress=progress)
        # rebuild: vectors of an older document format must not survive the reload
        embed_store(store, make_embedder(DEMO_EMBEDDER), rebuild=True, progress=progress)
        build_lexical_index(store, progress=progress)
        # --method sage works on the demo too
        build_similarity_graph(store, make_embedder(DEMO_EMBEDDER), progress=progress)
        with store.transaction():
            store.set_meta(DOCUMENTS_VERSION_KEY, DOCUMENTS_VERSION)
    finally:
        store.close()
    return path


def open_store_for(settings: StoreSettings, *, write: bool = False, read_only: bool = False,
                   create: bool = False, progress: bool = False) -> Store:
    """The store a command works on: ``settings.db`` (--db, else ``$AFR_DB``), else
    ``./afr.duckdb``.

    A command that only reads (``write=False``: ask, cypher, eval, info, sql) falls back
    to the bundled demo store, set up on first use, when nothing was chosen and there is
    no ``./afr.duckdb``. ``read_only`` opens the store without write access.

    Only ``create`` (afr init) makes a store that is not there; every other command needs
    one holding afr's tables, and without one it stops with a one-line error having
    created nothing: no DuckDB file, no PostgreSQL schema or extension."""
    chosen = settings.db
    target = chosen
    if target is None:
        target = DEFAULT_DB
        if not write and not Path(DEFAULT_DB).exists():
            demo_path = demo_store_path(settings)
            if not create:
                demo = _open_ready_demo(demo_path, read_only)
                if demo is not None:
                    return demo
            target = str(ensure_demo_store(demo_path, progress=progress))
    if not create and not is_store_url(target) and not Path(target).expanduser().exists():
        if chosen is None:
            raise StoreError(f"no store here (./{DEFAULT_DB}); run 'afr load DIR' first")
        raise StoreError(f"no store at {target}; run 'afr load DIR' first, or check --db "
                         "and $AFR_DB")
    store = open_store(target, read_only=read_only, create=create, settings=settings)
    if not create:
        try:
            initialised = store.schema_version() > 0
        except BaseException:
            store.close()
            raise
        if not initialised:
            store.close()
            raise StoreError(f"the store {store.location} holds no afr tables; run "
                             "'afr load DIR' first")
    return store


def setup_demo(settings: StoreSettings, *, rebuild: bool = False,
               progress: bool = False) -> Path:
    """``afr demo``: the demo store at the chosen DuckDB file (``settings.db``), else in
    the cache; a PostgreSQL URL is not a place for it, so the cache is used."""
    target = settings.db
    path = Path(target).expanduser() if target and not is_store_url(target) \
        else demo_store_path(settings)
    return ensure_demo_store(path, rebuild=rebuild, progress=progress)


def example_question() -> str | None:
    """The first question of the demo's questions.csv (a first thing to ask)."""
    questions = demo_skb_dir() / "questions.csv"
    if not questions.is_file():
        return None
    with open(questions, encoding="utf-8", newline="") as fh:
        first = next(csv.DictReader(fh), None)
    return first["query"] if first else None
