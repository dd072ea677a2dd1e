"""Load benchmark: a PRIME-sized synthetic SKB into DuckDB and into PostgreSQL.

Each load runs in a fresh child process so its peak memory (max RSS) is its own.
Reports nodes, edges, seconds, edges/s and peak RSS per store, median of --repeat runs.

    python bench/bench_load.py [--nodes 130000] [--edges 8000000] [--repeat 3]
                               [--pg URL | (pgserver)] [--data DIR]
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent

CHILD = r"""
import json, resource, sys, time
from afr.store import open_store
from afr.load import load_skb_dir
db, schema, skb = sys.argv[1], sys.argv[2], sys.argv[3]
store = open_store(db, schema=schema)
report = load_skb_dir(store, skb, replace=True, progress=False)
store.close()
peak_kb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
print(json.dumps({"nodes": report.nodes, "edges": report.edges, "seconds": report.seconds,
                  "peak_mb": peak_kb / 1024}))
"""


def run_child(db: str, schema: str, skb: Path) -> dict:
    out = subprocess.run([sys.executable, "-c", CHILD, db, schema, str(skb)],
                         capture_output=True, text=True, check=False)
    if out.returncode != 0:
        raise SystemExit(f"load failed: {out.stderr.strip().splitlines()[-1]}")
    return json.loads(out.stdout.strip().splitlines()[-1])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--nodes", type=int, default=130_000)
    parser.add_argument("--edges", type=int, default=8_000_000)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--pg", help="PostgreSQL URL (default: start pgserver)")
    parser.add_argument("--data", type=Path, help="where the synthetic SKB is kept")
    parser.add_argument("--stores", default="duckdb,postgres",
                        help="comma-separated: duckdb, postgres")
    args = parser.parse_args()

    sys.path.insert(0, str(HERE))
    from synth_skb import generate

    data = args.data or Path(tempfile.gettempdir()) / f"afr-synth-{args.nodes}-{args.edges}"
    if not (data / "edges.csv.gz").exists():
        print(f"generating {data} …", file=sys.stderr)
        generate(data, args.nodes, args.edges)

    results: dict[str, list[dict]] = {"duckdb": [], "postgres": []}
    stores = set(args.stores.split(","))
    # The loads' stores and server are the bench's own: all of it goes at the end.
    with tempfile.TemporaryDirectory(prefix="afr-bench-") as work:
        for i in range(args.repeat if "duckdb" in stores else 0):
            db = Path(work) / f"load{i}.duckdb"
            results["duckdb"].append(run_child(str(db), "afr", data))
            db.unlink()
        if "postgres" in stores:
            url = args.pg
            server = None
            if url is None:
                import pgserver

                server = pgserver.get_server(Path(work) / "pg", cleanup_mode="delete")
                url = server.get_uri()
            try:
                for i in range(args.repeat):
                    results["postgres"].append(run_child(url, f"bench{i}", data))
            finally:
                if server is not None:
                    server.cleanup()

    print(f"{'store':10} {'nodes':>9} {'edges':>10} {'median s':>9} {'edges/s':>12} "
          f"{'peak MB':>8}")
    for store, runs in results.items():
        if not runs:
            continue
        secs = statistics.median(r["seconds"] for r in runs)
        peak = max(r["peak_mb"] for r in runs)
        print(f"{store:10} {runs[0]['nodes']:>9,} {runs[0]['edges']:>10,} {secs:>9.2f} "
              f"{runs[0]['edges'] / secs:>12,.0f} {peak:>8.0f}")


if __name__ == "__main__":
    main()
