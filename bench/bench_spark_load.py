"""Small loads on a warm Spark session: what a load costs Spark beyond its data.

    python bench/bench_spark_load.py [--loads 5] [--master local[2]]

Loads the demo SKB into Spark stores of one ``local[2]`` session (warmed by a first load,
not counted): ``--loads`` times into a new store each, then as many reloads of one store
(``replace``). Prints each mode's seconds per load (median) and statements per load
(``Store.statements``). The demo is small, so the figures are the per-statement cost of a
load (catalogues, meta, migrations), which larger SKBs pay too; bench/bench_spark_prime.py
measures a load at PRIME size.
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
import time
import uuid
from collections.abc import Callable

from afr.load import load_skb_dir
from afr.resources import demo_skb_dir
from afr.settings import StoreSettings
from afr.store import open_store
from afr.store.base import Store


def timed_loads(open_new: Callable[[], Store], loads: int, *,
                fresh: bool) -> tuple[list[float], list[int]]:
    store: Store = open_new()
    load_skb_dir(store, demo_skb_dir(), replace=True, progress=False)  # warms the session
    seconds, statements = [], []
    try:
        for _ in range(loads):
            if fresh:
                store.close()
                store = open_new()
            before, started = store.statements, time.perf_counter()
            load_skb_dir(store, demo_skb_dir(), replace=True, progress=False)
            seconds.append(time.perf_counter() - started)
            statements.append(store.statements - before)
    finally:
        store.close()
    return seconds, statements


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--loads", type=int, default=5)
    parser.add_argument("--master", default="local[2]")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="afr-spark-load-") as warehouse:
        settings = StoreSettings(spark_warehouse=warehouse)

        def open_new() -> Store:
            return open_store(f"spark://{args.master}/load_{uuid.uuid4().hex[:8]}",
                              settings=settings)

        for mode, fresh in (("new store", True), ("replace", False)):
            seconds, statements = timed_loads(open_new, args.loads, fresh=fresh)
            print(f"{mode:>9}: median {statistics.median(seconds):.2f} s per load "
                  f"({', '.join(f'{s:.2f}' for s in seconds)}), "
                  f"{statistics.median(statements):.0f} statements")


if __name__ == "__main__":
    main()
