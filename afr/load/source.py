"""`afr load` in one call: pick the format, open the chosen store, load, and leave nothing
behind when the first load into it fails: no DuckDB file, no PostgreSQL schema."""

from __future__ import annotations

from contextlib import suppress
from pathlib import Path
from typing import Literal

from afr.errors import LoadError, StoreError
from afr.load.loader import LoadReport, load_skb_dir
from afr.resources import demo_skb_dir
from afr.settings import StoreSettings
from afr.store import is_store_url, open_store, resolve_db

# skb: an SKB directory (its tables JSON lines and CSV, or Parquet, Delta or Iceberg
# tables); parquet, delta, iceberg: one whose tables are of that format; stark: STaRK's
# processed files
Format = Literal["auto", "skb", "parquet", "delta", "iceberg", "stark"]
#: The source name of the bundled demo SKB (``afr load demo``), unless a path is called so.
DEMO = "demo"


def source_path(source: str | Path) -> Path:
    """The SKB directory ``source`` names: a path, or ``demo`` for the bundled demo SKB
    (when there is no file or folder called demo here)."""
    path = Path(source)
    if str(source) == DEMO and not path.exists():
        return demo_skb_dir()
    return path


def detect_format(source: Path) -> Literal["skb", "stark"]:
    """``skb`` for an SKB directory, ``stark`` for STaRK's processed files."""
    if (source / "skb.json").exists():
        return "skb"
    return "stark" if (source / "node_info.pkl").exists() else "skb"


def load_into(settings: StoreSettings, source: str | Path, *, fmt: Format = "auto",
              dataset: str | None = None, replace: bool = False, progress: bool = False,
              nodes_table: str | None = None, edges_table: str | None = None
              ) -> LoadReport:
    """Load ``source`` into the store the [store] settings name (``settings.db``, else
    ``./afr.duckdb``). ``source`` may be ``demo``, the bundled demo SKB. ``nodes_table``
    and ``edges_table`` name tables of the store's catalog to read those from, in place
    of the directory's files. A DuckDB file or a PostgreSQL schema this load created is
    removed again when the load fails."""
    source = source_path(source)
    if not source.exists():
        raise LoadError(f"{source}: no such file or directory")
    kind = detect_format(source) if fmt == "auto" else fmt
    named = {"--nodes-table": nodes_table, "--edges-table": edges_table}
    if kind == "stark" and any(named.values()):
        raise LoadError(f"{' and '.join(k for k, v in named.items() if v)}: for an SKB "
                        "directory (skb.json), not STaRK's files")
    target = resolve_db(settings.db)
    created = None
    if not is_store_url(target) and not Path(target).expanduser().exists():
        created = Path(target).expanduser()
    store = open_store(target, settings=settings)
    loaded = False
    try:
        if kind == "stark":
            from afr.load.stark import load_stark

            report = load_stark(store, source, dataset=dataset, replace=replace,
                                progress=progress)
        else:
            report = load_skb_dir(store, source, replace=replace, progress=progress,
                                  tables=None if kind == "skb" else kind,
                                  nodes_table=nodes_table, edges_table=edges_table)
        loaded = True
        return report
    finally:
        if not loaded:
            with suppress(StoreError):  # the load's own error is the one to report
                store.drop_created_schema()
        store.close()
        if created is not None and not loaded:  # a failed first load leaves no empty file
            created.unlink(missing_ok=True)
            Path(str(created) + ".wal").unlink(missing_ok=True)
