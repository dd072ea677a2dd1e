"""The bundled demo SKB as a ready store (loaded and embedded on first use), and the one
rule for which store a command works on (``open_store_for``)."""

from __future__ import annotations

import csv
import shutil
from collections.abc import Callable
from contextlib import suppress
from dataclasses import dataclass
from pathlib import Path

from afr.errors import StoreError
from afr.lexical import Tokenizer, has_lexical_index, index_tokenizer
from afr.lexical.memory import VERSION_KEY as POSTINGS_VERSION_KEY
from afr.resources import demo_skb_dir
from afr.settings import BM25Settings, StoreSettings, cache_dir
from afr.store import (
    DEFAULT_DB,
    DuckDBStore,
    Store,
    check_store_file,
    is_store_url,
    open_store,
)
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
    # loads recorded which node types each edge type connects (the grounding's checks),
    # and one whose lexical index has other terms than the default tokeniser makes; and
    # one built before loads kept the texts lower-cased or indexes wrote a postings file
    # (`afr info` would suggest commands for them that reach ./afr.duckdb, not the demo).
    return (store.schema_version() == SCHEMA_VERSION and bool(store.skb_name())
            and store.embedding_model("doc_rel") is not None
            and store.meta_fact(DOCUMENTS_VERSION_KEY) == DOCUMENTS_VERSION
            and store.meta_fact("skb_edge_pairs") is not None
            and store.has_lower_texts()
            and store.meta_fact(POSTINGS_VERSION_KEY) is not None
            and has_lexical_index(store)
            and index_tokenizer(store) == Tokenizer.of(BM25Settings()))


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


def demo_skb_name() -> str:
    """The name of the bundled demo SKB (its skb.json)."""
    import json

    return json.loads((_demo_dir() / "skb.json").read_text(encoding="utf-8"))["name"]


def _demo_dir() -> Path:
    skb = demo_skb_dir()
    if not (skb / "skb.json").is_file():
        raise StoreError(f"the demo SKB is missing from this installation ({skb})")
    return skb


def build_demo(store: Store, *, progress: bool = False) -> None:
    """Load the demo SKB into ``store`` (replacing what is there) and make it ready for
    every method: vectors, the lexical index, the similarity graph."""
    # Building the demo is rare: commands that only open a store do not import the loader.
    from afr.embed import make_embedder
    from afr.lexical.index import build_lexical_index
    from afr.load import load_skb_dir
    from afr.vectors import embed_store
    from afr.vectors.similarity import build_similarity_graph

    load_skb_dir(store, _demo_dir(), replace=True, progress=progress)
    # rebuild: vectors of an older document format must not survive the reload
    embed_store(store, make_embedder(DEMO_EMBEDDER), rebuild=True, progress=progress)
    build_lexical_index(store, progress=progress)
    # --method sage works on the demo too
    build_similarity_graph(store, make_embedder(DEMO_EMBEDDER), progress=progress)
    with store.transaction():
        store.set_meta(DOCUMENTS_VERSION_KEY, DOCUMENTS_VERSION)


def ensure_demo_store(path: Path, *, rebuild: bool = False, progress: bool | None = None) -> Path:
    """Load and embed the demo SKB into the DuckDB file ``path`` unless it is there."""
    if demo_ready(path) and not rebuild:
        return path
    _demo_dir()
    store = DuckDBStore(path)
    try:
        build_demo(store, progress=progress)
    finally:
        store.close()
    return path


def open_store_for(settings: StoreSettings, *, write: bool = False, read_only: bool = False,
                   create: bool = False, progress: bool = False,
                   building_demo: Callable[[Path], None] | None = None) -> Store:
    """The store a command works on: ``settings.db`` (--db, else ``$AFR_DB``), else
    ``./afr.duckdb``.

    A command that only reads (``write=False``: ask, cypher, eval, info, sql) falls back
    to the bundled demo store, set up on first use, when nothing was chosen and there is
    no ``./afr.duckdb``. ``read_only`` opens the store without write access.

    ``building_demo`` hears of it (the path) before the demo store is built, which takes
    a few seconds. Only ``create`` (afr init) makes a store that is not there; every
    other command needs one holding afr's tables, and without one it stops with a
    one-line error having created nothing: no DuckDB file, no PostgreSQL schema or
    extension."""
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
            if building_demo is not None and not demo_ready(demo_path):
                building_demo(demo_path)
            target = str(ensure_demo_store(demo_path, progress=progress))
    if not is_store_url(target):
        check_store_file(Path(target).expanduser())  # before saying it is missing
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


@dataclass(frozen=True)
class DemoSetup:
    """What ``afr demo`` did: where the demo store is, and whether it was built now."""

    location: str
    built: bool
    path: Path | None = None  # the DuckDB file, when it is one


def setup_demo(settings: StoreSettings, *, rebuild: bool = False,
               progress: bool = False) -> DemoSetup:
    """``afr demo``: the demo store in the store ``settings.db`` names (a DuckDB file or a
    PostgreSQL URL), else in the cache. A named store holding another SKB is refused, not
    replaced; a store this call created is removed again when building fails."""
    target = settings.db
    if target is None:
        path = demo_store_path(settings)
        built = rebuild or not demo_ready(path)
        ensure_demo_store(path, rebuild=rebuild, progress=progress)
        return DemoSetup(str(path), built, path)
    created = None
    if not is_store_url(target) and not Path(target).expanduser().exists():
        created = Path(target).expanduser()
    store = open_store(target, settings=settings, create=True)
    done = False
    try:
        store.init()
        held = store.skb_name()
        if held and held != demo_skb_name():
            raise StoreError(f"the store {store.location} holds the SKB {held!r}; 'afr demo' "
                             "does not replace it: name another store with --db, or "
                             "'afr load demo --replace' to replace it")
        built = rebuild or not _holds_ready_demo(store)
        if built:
            build_demo(store, progress=progress)
        done = True
        return DemoSetup(store.location, built, getattr(store, "path", None))
    finally:
        if not done:
            with suppress(StoreError):  # the build's own error is the one to report
                store.drop_created_schema()
        store.close()
        if created is not None and not done:  # nothing left behind
            created.unlink(missing_ok=True)
            Path(str(created) + ".wal").unlink(missing_ok=True)
            shutil.rmtree(Path(str(created) + ".vectors"), ignore_errors=True)


def example_question() -> str | None:
    """The first question of the demo's questions.csv (a first thing to ask)."""
    questions = demo_skb_dir() / "questions.csv"
    if not questions.is_file():
        return None
    with open(questions, encoding="utf-8", newline="") as fh:
        first = next(csv.DictReader(fh), None)
    return first["query"] if first else None
