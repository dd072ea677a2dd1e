"""A subset of the WordNet SKB small enough to embed with MiniLM on two busy cores.

The full SKB has 265,010 nodes: two variants through MiniLM (sentence-transformers) would
take hours here. This keeps what the 92 questions can reach and a random sample of the rest,
so vector search still has to find the answers among tens of thousands of distractors:

- seeds: every gold answer, and every node named by a ``{name: "…"}`` of a gold or noisy
  Cypher (case-insensitive, all nodes bearing that name);
- everything within two hops of a seed, not walking through the 45 category nodes (each
  links to up to 82K concepts);
- all 45 category nodes;
- ``--sample`` (default 30,000) of the other nodes, drawn with ``random.Random(--seed)``
  from the sorted ids;
- the edges whose both ends are kept.

Questions are copied unchanged (their gold answers are all kept: they are seeds). Run
``bench/real/verify_questions.py`` on a store loaded from the subset to see which gold
answers the check queries still find there (a path through a dropped node is gone).

    python bench/real/subset_skb.py SKB_DIR OUT_DIR [--sample 30000] [--seed 27]
"""

from __future__ import annotations

import argparse
import collections
import csv
import gzip
import json
import random
import re
import shutil
from pathlib import Path

NAME = re.compile(r'name:\s*"([^"]+)"')


def read_nodes(skb: Path) -> list[dict]:
    with gzip.open(skb / "nodes.jsonl.gz", "rt", encoding="utf-8") as f:
        return [json.loads(line) for line in f]


def read_edges(skb: Path) -> list[dict]:
    with gzip.open(skb / "edges.csv.gz", "rt", encoding="utf-8", newline="") as f:
        return list(csv.DictReader(f))


def seed_ids(skb: Path, nodes: list[dict]) -> set[str]:
    """Gold answers and the nodes the questions' Cypher names."""
    by_name: dict[str, list[str]] = collections.defaultdict(list)
    for node in nodes:
        by_name[node["name"].lower()].append(node["id"])
    seeds: set[str] = set()
    with open(skb / "questions.csv", encoding="utf-8", newline="") as f:
        for question in csv.DictReader(f):
            seeds |= set(json.loads(question["answer_ids"]))
            for cypher in (question["cypher"], question["cypher_noisy"]):
                for name in NAME.findall(cypher):
                    seeds |= set(by_name.get(name.lower(), ()))
    return seeds


def within_hops(seeds: set[str], edges: list[dict], types: dict[str, str],
                hops: int) -> set[str]:
    """Nodes within ``hops`` undirected steps of a seed, never through a category node."""
    neighbours: dict[str, set[str]] = collections.defaultdict(set)
    for edge in edges:
        if types[edge["src"]] != "category" and types[edge["dst"]] != "category":
            neighbours[edge["src"]].add(edge["dst"])
            neighbours[edge["dst"]].add(edge["src"])
    kept, frontier = set(seeds), set(seeds)
    for _ in range(hops):
        frontier = {n for node in frontier for n in neighbours[node]} - kept
        kept |= frontier
    return kept


def write_subset(skb: Path, out: Path, nodes: list[dict], edges: list[dict],
                 kept: set[str]) -> dict:
    out.mkdir(parents=True, exist_ok=True)
    # mtime=0: the same subset gives the same bytes
    with open(out / "nodes.jsonl.gz", "wb") as raw, \
            gzip.GzipFile(fileobj=raw, mode="wb", mtime=0) as f:
        for node in nodes:
            if node["id"] in kept:
                f.write((json.dumps(node, ensure_ascii=False) + "\n").encode("utf-8"))
    n_edges = 0
    with open(out / "edges.csv.gz", "wb") as raw, \
            gzip.GzipFile(fileobj=raw, mode="wb", mtime=0) as f:
        f.write(b"src,type,dst\n")
        for edge in edges:
            if edge["src"] in kept and edge["dst"] in kept:
                row = [edge["src"], edge["type"], edge["dst"]]
                f.write((",".join(_csv_field(v) for v in row) + "\n").encode("utf-8"))
                n_edges += 1
    for name in ("skb.json", "LICENSE-WordNet.txt", "questions.csv", "dev.csv", "test.csv"):
        shutil.copy(skb / name, out / name)
    counts = collections.Counter(node["type"] for node in nodes if node["id"] in kept)
    stats = {"nodes": len(kept), "edges": n_edges, "nodes_per_type": dict(sorted(counts.items()))}
    (out / "stats.json").write_text(json.dumps(stats, indent=2) + "\n", encoding="utf-8")
    return stats


def _csv_field(value: str) -> str:
    if any(c in value for c in ',"\n'):
        return '"' + value.replace('"', '""') + '"'
    return value


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("skb", type=Path, help="the full SKB (bench/real/build_skb.py's OUT_DIR)")
    parser.add_argument("out", type=Path)
    parser.add_argument("--sample", type=int, default=30_000)
    parser.add_argument("--seed", type=int, default=27)
    parser.add_argument("--hops", type=int, default=2)
    args = parser.parse_args()
    nodes, edges = read_nodes(args.skb), read_edges(args.skb)
    types = {node["id"]: node["type"] for node in nodes}
    seeds = seed_ids(args.skb, nodes)
    near = within_hops(seeds, edges, types, args.hops)
    kept = near | {i for i, t in types.items() if t == "category"}
    rest = sorted(set(types) - kept)
    kept |= set(random.Random(args.seed).sample(rest, min(args.sample, len(rest))))
    stats = write_subset(args.skb, args.out, nodes, edges, kept)
    print(f"{len(seeds):,} seeds, {len(near):,} nodes within {args.hops} hops, "
          f"{stats['nodes']:,} nodes and {stats['edges']:,} edges kept → {args.out}")


if __name__ == "__main__":
    main()
