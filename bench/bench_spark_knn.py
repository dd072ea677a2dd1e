"""Spark's heavy steps against DuckDB: embedding by the executors (``mapInPandas``) and
the similarity graph's kNN, exact and approximate (LSH), with recall@k against exact.

On one SKB (a MAG-like synthetic set, e.g. ``python bench/synth_skb.py /tmp/mag30k --like
mag --nodes 30000 --edges 150000``) it measures, in one run:

1. embedding (``embed_store``, the built-in hash embedder, doc and doc_rel) in nodes/s:
   DuckDB; a Spark store on the driver (the path before the executors: documents and
   vectors on the driver, written as Parquet by DuckDB); a Spark store by its executors;
2. the kNN of the similarity graph's ``doc`` signal (the eligible nodes' unit vectors, as
   ``afr index --similarity`` reads them): exact on one machine (DuckDB's path), exact as
   Spark jobs, LSH as Spark jobs (and on one machine), each with its time and recall@k
   against exact on a sample of nodes;
3. the whole ``afr index --similarity`` build: DuckDB exact; Spark exact and LSH.

    python bench/bench_spark_knn.py SKB_DIR [--k 50] [--sample 1000] [--tables 8]
                                    [--bits 12] [--master local[2]] [--skip-build]
                                    [--knn-only [--model SPEC]] [--all-types] [--sweep]
                                    [--no-exact]

``--knn-only --all-types``: only step 2, over every node's vector (not only the eligible
types'), the SKB embedded into DuckDB alone.

Times are wall-clock on a shared machine: compare the ratios within one run.

Measured 2026-11-26 (2 cores shared with 4 other engineers' jobs, load average 18–27,
``nice -n 10``; a MAG-like set of 30,000 nodes and 150,000 edges, hash:384, k 50; the
tables with every figure are in docs/stores.md, "Figures: the heavy steps at MAG-like
size"): embedding 2,432 nodes/s on DuckDB, 190 on Spark's driver, 359 by its executors;
kNN of 11,100 eligible nodes exact 7.4 s here, 14.2 s as Spark jobs (recall 1.0); LSH
8 x 12 bits 0.196 recall (which set the size-chosen bits); all 30,000 nodes, LSH 8 x 7
bits (the default there) recall@50 0.607 in 49.7 s. At 200,000 nodes (``--knn-only
--all-types --no-exact --model m2v:DIR``, load 5–9): LSH 8 x 10 bits recall@50 0.451, 728 s
as Spark jobs, 241 s on one machine.
"""

from __future__ import annotations

import argparse
import tempfile
import time
from pathlib import Path

import afr.vectors.index as embed_index
from afr.embed import make_embedder
from afr.load import load_skb_dir
from afr.settings import StoreSettings
from afr.store import open_store
from afr.vectors import KnnChoice, LshParams, build_similarity_graph, embed_store
from afr.vectors import knn as local_knn
from afr.vectors.similarity import doc_signal, eligible_types


def _timed(label: str, work, nodes: int | None = None):
    started = time.perf_counter()
    out = work()
    seconds = time.perf_counter() - started
    rate = f", {nodes / seconds:,.0f} nodes/s" if nodes else ""
    print(f"{label:<44} {seconds:8.1f} s{rate}", flush=True)
    return out, seconds


def _spark_store(warehouse: Path, master: str, name: str):
    return open_store(f"spark://{master}/{name}",
                      settings=StoreSettings(spark_warehouse=str(warehouse)))


def bench_embedding(skb: Path, work: Path, master: str) -> dict:
    """Load the SKB into DuckDB and two Spark databases; embed each, timed."""
    stores = {"duckdb": open_store(work / "bench.duckdb"),
              "spark-driver": _spark_store(work / "spark", master, "driver"),
              "spark-executors": _spark_store(work / "spark", master, "executors")}
    for name, store in stores.items():
        _timed(f"load ({name})", lambda s=store: load_skb_dir(s, skb, progress=False))
    nodes = int(stores["duckdb"].query("SELECT count(*) FROM nodes")[0][0])
    hash_embedder = make_embedder("hash")
    _timed("embed doc+doc_rel: DuckDB", lambda: embed_store(
        stores["duckdb"], hash_embedder, progress=False), 2 * nodes)
    on_executors = embed_index.executor_spec
    embed_index.executor_spec = lambda embedder: None  # the path before mapInPandas
    try:
        _timed("embed doc+doc_rel: Spark, on the driver", lambda: embed_store(
            stores["spark-driver"], hash_embedder, progress=False), 2 * nodes)
    finally:
        embed_index.executor_spec = on_executors
    _timed("embed doc+doc_rel: Spark, by the executors", lambda: embed_store(
        stores["spark-executors"], hash_embedder, progress=False), 2 * nodes)
    stores["spark-driver"].close()
    return stores


def bench_knn(duck, spark, k: int, sample: int, params: LshParams, *,
              all_types: bool = False, sweep: bool = False, exact: bool = True) -> None:
    from afr.vectors import spark_knn

    types = sorted(duck.skb_schema().node_types) if all_types else \
        eligible_types(duck, min_text_chars=200)
    signal = doc_signal(duck, types)
    vectors = signal.vectors
    print(f"kNN of the doc signal: {len(vectors):,} nodes of {', '.join(types)}, "
          f"dim {vectors.shape[1]}, k {k}, recall on {min(sample, len(vectors)):,} nodes")
    params = params.for_size(len(vectors), k)
    if sweep:
        _sweep(vectors, k, sample, params)
    session = spark.dataframe_session()
    runs = [("exact, one machine (DuckDB's path)",
             lambda: local_knn.exact_neighbours(vectors, k)),
            ("exact, Spark jobs", lambda: spark_knn.exact_neighbours(
                session, vectors, k, chunk_mb=local_knn.DEFAULT_CHUNK_MB)),
            (f"LSH {params.tables}x{params.bits} bits, Spark jobs",
             lambda: spark_knn.lsh_neighbours(session, vectors, k, params)),
            (f"LSH {params.tables}x{params.bits} bits, one machine",
             lambda: local_knn.lsh_neighbours(vectors, k, params))]
    for label, work in runs if exact else runs[2:]:
        found, _ = _timed(label, work, len(vectors))
        recall = local_knn.recall_at_k(vectors, found, k, sample=sample)
        print(f"{'':<44} recall@{k} {recall:.3f}")


def _sweep(vectors, k: int, sample: int, params: LshParams) -> None:
    """LSH on one machine around the chosen ``bits`` and ``tables``: time and recall."""
    from dataclasses import replace

    for tables in (params.tables, params.tables * 2):
        for bits in range(max(1, params.bits - 1), params.bits + 2):
            trial = replace(params, tables=tables, bits=bits)
            found, _ = _timed(f"LSH {tables}x{bits} bits, one machine",
                              lambda t=trial: local_knn.lsh_neighbours(vectors, k, t),
                              len(vectors))
            print(f"{'':<44} recall@{k} "
                  f"{local_knn.recall_at_k(vectors, found, k, sample=sample):.3f}")


def bench_build(duck, spark, k: int, params: LshParams) -> None:
    embedder = make_embedder("hash")
    for label, store, knn in [("similarity graph: DuckDB, exact", duck, KnnChoice()),
                              ("similarity graph: Spark, exact", spark, KnnChoice()),
                              ("similarity graph: Spark, LSH", spark,
                               KnnChoice("lsh", params))]:
        report, _ = _timed(label, lambda s=store, c=knn: build_similarity_graph(
            s, embedder, k_cand=k, knn=c, progress=False))
        print(f"{'':<44} {report.nodes:,} nodes, {report.pairs:,} pairs, mean degree "
              f"{report.degree.mean:.1f}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("skb", type=Path)
    parser.add_argument("--k", type=int, default=50)
    parser.add_argument("--sample", type=int, default=1000)
    parser.add_argument("--tables", type=int, default=LshParams.tables)
    parser.add_argument("--bits", type=int, default=LshParams.bits)
    parser.add_argument("--master", default="local[2]")
    parser.add_argument("--skip-build", action="store_true",
                        help="Only embedding and kNN, not the whole graph build.")
    parser.add_argument("--knn-only", action="store_true",
                        help="Only the kNN: the SKB loaded and embedded into DuckDB alone.")
    parser.add_argument("--all-types", action="store_true",
                        help="The kNN over every node, not only the eligible types.")
    parser.add_argument("--model", default="hash",
                        help="--knn-only: the embedder of the vectors (an --model spec; "
                             "hash vectors are near-random directions, LSH's hardest case).")
    parser.add_argument("--no-exact", action="store_true",
                        help="Only LSH (with its recall on the sample): the exact kNN is "
                             "quadratic, out of reach at MAG's size.")
    parser.add_argument("--sweep", action="store_true",
                        help="Also LSH here with --tables and twice as many, bits around the chosen.")
    args = parser.parse_args()
    params = LshParams(tables=args.tables, bits=args.bits)
    with tempfile.TemporaryDirectory(prefix="afr-bench-spark-") as tmp:
        if args.knn_only:
            duck = open_store(Path(tmp) / "bench.duckdb")
            load_skb_dir(duck, args.skb, progress=False)
            embedder = make_embedder(args.model)
            _timed(f"embed doc: DuckDB, {args.model}", lambda: embed_store(
                duck, embedder, variants=["doc"], progress=False))
            spark = _spark_store(Path(tmp) / "spark", args.master, "knn")
        else:
            stores = bench_embedding(args.skb, Path(tmp), args.master)
            duck, spark = stores["duckdb"], stores["spark-executors"]
        bench_knn(duck, spark, args.k, args.sample, params, all_types=args.all_types,
                  sweep=args.sweep, exact=not args.no_exact)
        if not (args.skip_build or args.knn_only):
            bench_build(duck, spark, args.k, params)
        duck.close()
        spark.close()


if __name__ == "__main__":
    main()
