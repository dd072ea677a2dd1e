"""Fuzz the Cypher parser: no exception may escape, every result must be a valid query
graph, and grammatical queries must parse to exactly the graph they were rendered from.

Families (the hypothesis strategies of tests/cypher_strategies.py, plus plain random
edits of the hand-written corpus in tests/data/cypher_corpus.py):

- grammatical: random query graphs rendered in random LLM styles (checked for round trip)
- mutated:     grammatical replies with 1–8 random edits
- random:      random unicode text and random token soups
- corpus:      the realistic corpus replies with random edits (fast, plain `random`)
- huge:        ~100 KB inputs (repeated queries, tokens and mutations): parse time is
               measured here, since tests never assert speed

    python bench/fuzz_parser.py [--cases 10000] [--huge 60] [--corpus 10000] [--seed 0]

Prints counts per family: cases, exceptions (must be 0), invalid graphs (must be 0),
round-trip mismatches (grammatical only, must be 0), seconds, and the slowest parse of
a ~100 KB input. Failing inputs are written to --out (JSON lines) for reproduction.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import random
import sys
import time
import traceback
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent / "tests"))

from cypher_strategies import (  # noqa: E402
    TOKENS,
    check,
    grammatical_queries,
    huge_inputs,
    mutated_queries,
    random_texts,
    shape,
)
from hypothesis import HealthCheck, Phase, given, settings  # noqa: E402

from afr.cypher import parse_cypher  # noqa: E402


class Tally:
    def __init__(self, name: str, out: list[dict]) -> None:
        self.name, self.out = name, out
        self.cases = self.exceptions = self.invalid = self.mismatch = 0
        self.parse_seconds = 0.0
        self.slowest = (0.0, 0)
        self.started = time.perf_counter()

    def run(self, text: str, expected=None) -> None:
        self.cases += 1
        t0 = time.perf_counter()
        try:
            graph = parse_cypher(text)
        except Exception:  # noqa: BLE001 - counting them is the point
            self.exceptions += 1
            self.out.append({"family": self.name, "kind": "exception", "text": text,
                             "error": traceback.format_exc(limit=3)})
            return
        finally:
            spent = time.perf_counter() - t0
            self.parse_seconds += spent
            self.slowest = max(self.slowest, (spent, len(text)))
        problems = check(graph)
        if problems:
            self.invalid += 1
            self.out.append({"family": self.name, "kind": "invalid", "text": text,
                             "problems": problems})
        elif expected is not None and (graph.dropped or shape(graph) != shape(expected)):
            self.mismatch += 1
            self.out.append({"family": self.name, "kind": "mismatch", "text": text,
                             "got": graph.to_dict(), "expected": expected.to_dict()})

    def row(self) -> str:
        wall = time.perf_counter() - self.started
        return (f"{self.name:12s} {self.cases:7d} {self.exceptions:10d} {self.invalid:8d} "
                f"{self.mismatch:9d} {wall:8.1f} {self.parse_seconds:9.2f} "
                f"{self.slowest[0] * 1000:9.1f} {self.slowest[1]:9d}")


def hypothesis_family(tally: Tally, strategy, n: int, seed: int, pairs: bool = False) -> None:
    if n <= 0:
        return

    @settings(max_examples=n, deadline=None, database=None, derandomize=False,
              phases=[Phase.generate], suppress_health_check=list(HealthCheck))
    @given(strategy)
    def body(case) -> None:
        if pairs:
            tally.run(case[0], case[1])
        else:
            tally.run(case)

    # hypothesis seeds from the global random state when not derandomized
    random.seed(seed)
    body()


def corpus_family(tally: Tally, n: int, seed: int) -> None:
    path = HERE.parent / "tests" / "data" / "cypher_corpus.py"
    spec = importlib.util.spec_from_file_location("cypher_corpus", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    texts = [c["text"] for c in module.CASES]
    rng = random.Random(seed)
    for _ in range(n):
        text = rng.choice(texts)
        for _ in range(rng.randint(1, 6)):
            i = rng.randint(0, len(text))
            j = min(len(text), i + rng.randint(0, 15))
            op = rng.random()
            if op < 0.3:
                text = text[:i] + text[j:]
            elif op < 0.6:
                text = text[:i] + rng.choice(TOKENS) + text[i:]
            elif op < 0.7:
                text = text[:j] + text[i:j] * rng.randint(1, 3) + text[j:]
            elif op < 0.8:
                text = text[:i]
            elif op < 0.9:
                text = text[:i] + "".join(chr(rng.randint(0, 0x2FFFF)) for _ in range(3)) \
                    + text[i:]
            else:
                text = text[:i] + text[i:j].swapcase() + text[j:]
        tally.run(text)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--cases", type=int, default=10_000,
                    help="hypothesis cases, split 40%% grammatical / 40%% mutated / "
                         "20%% random")
    ap.add_argument("--huge", type=int, default=60, help="~100 KB inputs")
    ap.add_argument("--corpus", type=int, default=10_000, help="random edits of the corpus")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--out", type=Path, default=Path("fuzz_failures.jsonl"))
    args = ap.parse_args()

    failures: list[dict] = []
    tallies = []
    grammatical = int(args.cases * 0.4)
    mutated = int(args.cases * 0.4)
    plan = [
        ("grammatical", lambda t: hypothesis_family(t, grammatical_queries(), grammatical,
                                                    args.seed, pairs=True)),
        ("mutated", lambda t: hypothesis_family(t, mutated_queries(), mutated, args.seed)),
        ("random", lambda t: hypothesis_family(t, random_texts,
                                               args.cases - grammatical - mutated, args.seed)),
        ("corpus", lambda t: corpus_family(t, args.corpus, args.seed)),
        ("huge", lambda t: hypothesis_family(t, huge_inputs(), args.huge, args.seed)),
    ]
    print(f"{'family':12s} {'cases':>7s} {'exceptions':>10s} {'invalid':>8s} "
          f"{'mismatch':>9s} {'wall s':>8s} {'parse s':>9s} {'max ms':>9s} {'at chars':>9s}")
    for name, fn in plan:
        tally = Tally(name, failures)
        fn(tally)
        tallies.append(tally)
        print(tally.row(), flush=True)
    total = sum(t.cases for t in tallies)
    bad = sum(t.exceptions + t.invalid + t.mismatch for t in tallies)
    huge = tallies[-1]
    print(f"total {total} cases, {sum(t.exceptions for t in tallies)} exceptions, "
          f"{sum(t.invalid for t in tallies)} invalid graphs, "
          f"{sum(t.mismatch for t in tallies)} round-trip mismatches; slowest ~100 KB parse "
          f"{huge.slowest[0] * 1000:.0f} ms ({huge.slowest[1]} chars)")
    if failures:
        with args.out.open("w", encoding="utf-8") as fh:
            for f in failures:
                fh.write(json.dumps(f, ensure_ascii=False, default=str) + "\n")
        print(f"{len(failures)} failing inputs written to {args.out}")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
