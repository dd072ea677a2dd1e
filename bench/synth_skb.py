"""A synthetic SKB shaped like STaRK PRIME, for load and retrieval benchmarks.

A thin wrapper over `afr synth` (afr/synth): 10 node types, 18 edge types, heavy-tailed
degrees, names and short texts from vocabularies. Sizes are parameters: the default is
PRIME's (130K nodes, 8M edges). A benchmark tool, not a data set: nothing here is true.

    python bench/synth_skb.py OUT_DIR [--nodes 130000] [--edges 8000000] [--seed 0]
                                      [--like prime|mag|amazon] [--questions 0]
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

from afr.synth import generate as _generate


def generate(out: Path, n_nodes: int = 130_000, n_edges: int = 8_000_000, seed: int = 0, *,
             like: str = "prime", questions: int = 0) -> Path:
    """Write the SKB into ``out`` (replacing SKB files already there); returns ``out``."""
    _generate(out, like=like, nodes=n_nodes, edges=n_edges, questions=questions, seed=seed,
              exist_ok=True)
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("out", type=Path)
    parser.add_argument("--nodes", type=int, default=130_000)
    parser.add_argument("--edges", type=int, default=8_000_000)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--like", choices=["prime", "mag", "amazon"], default="prime")
    parser.add_argument("--questions", type=int, default=0)
    args = parser.parse_args()
    started = time.perf_counter()
    generate(args.out, args.nodes, args.edges, args.seed, like=args.like,
             questions=args.questions)
    print(f"wrote {args.out} in {time.perf_counter() - started:.1f} s")


if __name__ == "__main__":
    main()
