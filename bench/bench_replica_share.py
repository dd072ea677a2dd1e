"""How much of an evaluation a read replica would take: the statements of an offline demo
evaluation that run on a PostgreSQL store's reader (the connection a replica serves) against
those on the store's own connection (docs/scaling.md).

    python bench/bench_replica_share.py

Starts a throwaway pgserver PostgreSQL in a temp folder (removed after), loads the demo
SKB, and runs ``afr eval`` of the demo's questions (offline, HNSW search, no reranking).
The reader here is on the same server: which connection a read goes to does not depend on
where the reader connects.
"""

from __future__ import annotations

import shutil
import tempfile
import time
from pathlib import Path

import pgserver

from afr.demo import build_demo
from afr.evaluate.session import run_eval
from afr.resources import demo_skb_dir
from afr.settings import Settings, with_values
from afr.store import PostgresStore


def stop(datadir: Path) -> None:
    from pgserver._commands import pg_ctl

    try:
        pg_ctl(["-w", "-m", "fast", "stop"], pgdata=datadir, timeout=60,
               **({"user": "pgserver"} if _as_root() else {}))
    finally:
        shutil.rmtree(datadir, ignore_errors=True)


def _as_root() -> bool:
    import os

    return os.geteuid() == 0


def main() -> None:
    datadir = Path(tempfile.mkdtemp(prefix="afr-pg-"))
    try:
        url = pgserver.get_server(datadir, cleanup_mode=None).get_uri()
        store = PostgresStore(url, schema="share")
        build_demo(store)
        store.close()
        store = PostgresStore(url, schema="share")
        reader = store.reader()
        before = store.statements
        start = time.perf_counter()
        settings = with_values(Settings(), {"rerank.method": "none", "llm.offline": True})
        session = run_eval(store, str(demo_skb_dir()), replay="cypher", name="share",
                           settings=settings)
        own = store.statements - before
        on_reader = reader.statements if reader is not None else 0
        print(f"{session.questions} questions, {time.perf_counter() - start:.1f} s: "
              f"{on_reader} of {own + on_reader} statements on the reader "
              f"({on_reader / (own + on_reader):.0%}), {own} on the store's own connection")
        store.close()
    finally:
        stop(datadir)


if __name__ == "__main__":
    main()
