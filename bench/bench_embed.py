"""Embedding throughput of the built-in hashing embedder (`afr embed`), per document variant.

An `afr synth --like prime` SKB is loaded once into a DuckDB file; each run copies that
file and embeds one variant into the copy in a fresh child process, so every run starts
cold (no memoised words, no cached schema). Reports nodes/s per variant (median of
--repeat runs), wall and CPU seconds, and peak memory.

    python bench/bench_embed.py [--nodes 40000] [--repeat 3] [--variants doc,doc_rel]
                                [--work DIR] [--batch-size 256]
"""

from __future__ import annotations

import argparse
import json
import shutil
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

CHILD = r"""
import json, resource, sys, time
from afr.embed import make_embedder
from afr.store import open_store
from afr.vectors import embed_store
db, variant, batch = sys.argv[1], sys.argv[2], int(sys.argv[3])
store = open_store(db)
cpu = time.process_time()
report = embed_store(store, make_embedder("hash"), variants=[variant], batch_size=batch,
                     progress=False)
store.close()
print(json.dumps({"nodes": report.embedded[variant], "seconds": report.seconds,
                  "cpu": time.process_time() - cpu,
                  "peak_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024}))
"""


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--nodes", type=int, default=40_000)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--variants", default="doc,doc_rel")
    parser.add_argument("--batch-size", type=int, default=256)
    parser.add_argument("--work", type=Path, default=Path(tempfile.gettempdir()))
    args = parser.parse_args()

    from afr.load import load_skb_dir
    from afr.store import open_store
    from afr.synth import generate

    data = args.work / f"afr-synth-prime-{args.nodes}"
    base = args.work / f"afr-bench-embed-{args.nodes}.duckdb"
    if not (data / "edges.csv.gz").exists():
        generate(data, like="prime", nodes=args.nodes, questions=0, progress=False)
    if not base.exists():
        store = open_store(base)
        load_skb_dir(store, data, replace=True, progress=False)
        store.close()
    copy = args.work / "afr-bench-embed-run.duckdb"
    print(f"{'variant':8} {'nodes':>8} {'median s':>9} {'nodes/s':>9} {'cpu s':>7} "
          f"{'peak MB':>8}")
    try:
        for variant in args.variants.split(","):
            runs = []
            for _ in range(args.repeat):
                shutil.copy(base, copy)
                out = subprocess.run([sys.executable, "-c", CHILD, str(copy), variant,
                                      str(args.batch_size)],
                                     capture_output=True, text=True, check=False)
                if out.returncode != 0:
                    raise SystemExit(f"embed failed: {out.stderr.strip().splitlines()[-1]}")
                runs.append(json.loads(out.stdout.strip().splitlines()[-1]))
                shutil.rmtree(copy.with_name(copy.name + ".vectors"), ignore_errors=True)
            secs = statistics.median(r["seconds"] for r in runs)
            cpu = statistics.median(r["cpu"] for r in runs)
            print(f"{variant:8} {runs[0]['nodes']:>8,} {secs:>9.2f} "
                  f"{runs[0]['nodes'] / secs:>9,.0f} {cpu:>7.2f} "
                  f"{max(r['peak_mb'] for r in runs):>8.0f}")
    finally:
        copy.unlink(missing_ok=True)
        copy.with_name(copy.name + ".wal").unlink(missing_ok=True)


if __name__ == "__main__":
    main()
