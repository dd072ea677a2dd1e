"""A synthetic SKB shaped like STaRK PRIME, for load and retrieval benchmarks.

10 node types, 18 edge types, heavy-tailed degrees, names and short texts from small
vocabularies. Sizes are parameters: the default is PRIME's (≈130K nodes, ≈8M edges).
A benchmark tool, not a data set: nothing here is meant to be true.

    python bench/synth_skb.py OUT_DIR [--nodes 130000] [--edges 8000000] [--seed 0]
"""

from __future__ import annotations

import argparse
import gzip
import json
import time
from pathlib import Path

import duckdb
import numpy as np

# (type, share of nodes) — roughly PRIME's proportions.
NODE_TYPES = [
    ("gene/protein", 0.215), ("drug", 0.061), ("disease", 0.132), ("effect/phenotype", 0.120),
    ("anatomy", 0.108), ("pathway", 0.020), ("molecular_function", 0.085),
    ("biological_process", 0.218), ("cellular_component", 0.031), ("exposure", 0.010),
]
# (edge type, source type, target type, share of edges)
EDGE_TYPES = [
    ("ppi", "gene/protein", "gene/protein", 0.16), ("carrier", "drug", "gene/protein", 0.01),
    ("enzyme", "drug", "gene/protein", 0.01), ("target", "drug", "gene/protein", 0.02),
    ("transporter", "drug", "gene/protein", 0.01), ("contraindication", "drug", "disease", 0.03),
    ("indication", "drug", "disease", 0.01), ("off-label use", "drug", "disease", 0.01),
    ("synergistic interaction", "drug", "drug", 0.33),
    ("associated with", "gene/protein", "disease", 0.02),
    ("parent-child", "biological_process", "biological_process", 0.03),
    ("phenotype absent", "disease", "effect/phenotype", 0.01),
    ("phenotype present", "disease", "effect/phenotype", 0.04),
    ("side effect", "drug", "effect/phenotype", 0.07),
    ("interacts with", "gene/protein", "biological_process", 0.07),
    ("linked to", "exposure", "disease", 0.01),
    ("expression present", "anatomy", "gene/protein", 0.15),
    ("expression absent", "anatomy", "gene/protein", 0.01),
]
WORDS = ["alpha", "beta", "gamma", "delta", "kinase", "receptor", "factor", "protein", "syndrome", "disorder", "acute", "chronic", "type", "inhibitor", "binding", "cell", "membrane", "signal", "pathway", "transport", "regulation", "growth", "immune", "neural", "cardiac", "renal", "hepatic", "metabolic", "response", "tissue", "muscle", "bone", "skin", "lung", "blood", "vessel", "oxidative", "stress", "channel", "transcription", "enzyme", "domain", "complex", "family", "member", "like", "associated", "related", "induced", "deficiency"]


def _heavy_tailed(rng: np.random.Generator, n_nodes: int, size: int) -> np.ndarray:
    # Zipf-like popularity: a few hubs, a long tail.
    weights = 1.0 / np.arange(1, n_nodes + 1) ** 0.9
    weights /= weights.sum()
    perm = rng.permutation(n_nodes)
    return perm[rng.choice(n_nodes, size=size, p=weights)]


def generate(out: Path, n_nodes: int = 130_000, n_edges: int = 8_000_000, seed: int = 0) -> Path:
    rng = np.random.default_rng(seed)
    out.mkdir(parents=True, exist_ok=True)
    counts = [max(1, int(round(share * n_nodes))) for _, share in NODE_TYPES]
    ranges: dict[str, tuple[int, int]] = {}
    start = 0
    for (name, _), c in zip(NODE_TYPES, counts, strict=True):
        ranges[name] = (start, start + c)
        start += c
    schema = {
        "name": "synthetic-prime",
        "description": "synthetic SKB shaped like STaRK PRIME (benchmark data)",
        "directed": False,
        "node_types": {name: {"description": f"synthetic {name}"} for name, _ in NODE_TYPES},
        "edge_types": {
            e: {"source": s, "target": t, "label": f"{s}_{e.replace(' ', '_')}_{t}"}
            for e, s, t, _ in EDGE_TYPES
        },
    }
    (out / "skb.json").write_text(json.dumps(schema, indent=1))
    with gzip.open(out / "nodes.jsonl.gz", "wt", compresslevel=1) as fh:
        for name, (lo, hi) in ranges.items():
            for i in range(lo, hi):
                w = rng.choice(len(WORDS), 6)
                title = f"{WORDS[w[0]]} {WORDS[w[1]]} {i}"
                node = {"id": i, "type": name, "name": title,
                        "text": f"{title} is a {name} related to {WORDS[w[2]]} {WORDS[w[3]]} "
                                f"and {WORDS[w[4]]} {WORDS[w[5]]}.",
                        "attrs": {"score": int(w[0]), "source": WORDS[w[1]]}}
                fh.write(json.dumps(node) + "\n")
    srcs, dsts, types = [], [], []
    for etype, s, t, share in EDGE_TYPES:
        m = int(share * n_edges * 1.6)  # extra: heavy tails repeat pairs; duplicates go below
        (slo, shi), (tlo, thi) = ranges[s], ranges[t]
        srcs.append(slo + _heavy_tailed(rng, shi - slo, m))
        dsts.append(tlo + _heavy_tailed(rng, thi - tlo, m))
        types.append(np.full(m, EDGE_TYPES.index((etype, s, t, share)), dtype=np.int16))
    edges = {"src": np.concatenate(srcs), "dst": np.concatenate(dsts),
             "t": np.concatenate(types)}
    names = {"i": np.arange(len(EDGE_TYPES), dtype=np.int16),
             "name": np.array([e[0] for e in EDGE_TYPES])}
    con = duckdb.connect()
    con.register("edges", edges)
    con.register("names", names)
    con.execute(f"""
        COPY (
            SELECT src, n.name AS type, dst FROM (
                SELECT DISTINCT src, t, dst FROM edges WHERE src <> dst
            ) AS e JOIN names AS n ON n.i = e.t
            ORDER BY hash(src, t, dst)
            LIMIT {int(n_edges)}
        ) TO '{out / 'edges.csv.gz'}' (FORMAT csv, HEADER true, COMPRESSION gzip)
    """)
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("out", type=Path)
    parser.add_argument("--nodes", type=int, default=130_000)
    parser.add_argument("--edges", type=int, default=8_000_000)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    started = time.perf_counter()
    generate(args.out, args.nodes, args.edges, args.seed)
    print(f"wrote {args.out} in {time.perf_counter() - started:.1f} s")


if __name__ == "__main__":
    main()
