"""Synthetic STaRK-like graphs: nodes with names, texts and attributes; heavy-tailed edges.

Everything is drawn with numpy from one seed, so a (shape, sizes, seed) triple always
gives the same files. Memory stays bounded at MAG size (~2M nodes, ~40M edges): names
and texts are computed per node while streaming ``nodes.jsonl.gz`` (never held as a
list), edges live as int32 arrays per edge type, and DuckDB writes ``edges.csv.gz``.
"""

from __future__ import annotations

import datetime as dt
import gzip
import io
import json
import math
import shutil
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

import duckdb
import numpy as np

from afr.errors import AfrError
from afr.progress import Phases, bar
from afr.store.base import duckdb_sql
from afr.synth.schemas import AttrSpec, NodeSpec, Shape

# Popularity exponent of the Zipf law that picks edge endpoints: a few hubs, a long tail.
ZIPF_EXPONENT = 0.8
# A relation never fills more than this share of its possible pairs (tiny graphs), so
# degree distributions stay skewed rather than saturated.
MAX_DENSITY = 0.3


class Names:
    """Unique names of one node type, by mixed-radix composition of word lists.

    Local index i maps through an affine bijection of the composition space (so
    neighbouring ids get unrelated names); once the space is used up, a number is
    appended ("… 2").
    """

    def __init__(self, spec: NodeSpec, rng: np.random.Generator) -> None:
        self.parts = spec.name_parts
        self.fmt = spec.name_format
        self.capitalize = spec.capitalize
        self.sizes = [len(p) for p in self.parts]
        self.space = math.prod(self.sizes)
        mult = int(rng.integers(1, max(2, self.space)))
        while math.gcd(mult, self.space) != 1:
            mult += 1
        self.mult = mult
        self.add = int(rng.integers(0, self.space))

    def __call__(self, i: int) -> str:
        rep, j = divmod(int(i), self.space)
        idx = (j * self.mult + self.add) % self.space
        words = []
        for part, size in zip(reversed(self.parts), reversed(self.sizes), strict=True):
            idx, d = divmod(idx, size)
            words.append(part[d])
        name = " ".join(self.fmt.format(*reversed(words)).split())
        if self.capitalize:
            name = name[:1].upper() + name[1:]
        return name if rep == 0 else f"{name} {rep + 1}"


@dataclass
class NodeBlock:
    """One node type: a contiguous id range, names, phrases and attribute columns."""

    spec: NodeSpec
    lo: int
    hi: int
    names: Names
    phrases: np.ndarray  # (n, 2) phrase ids: quality * len(features) + feature
    attrs: dict[str, np.ndarray] = field(default_factory=dict)

    @property
    def n(self) -> int:
        return self.hi - self.lo

    def phrase(self, pid: int) -> str:
        q, f = divmod(int(pid), len(self.spec.features))
        return f"{self.spec.qualities[q]} {self.spec.features[f]}"

    def name(self, node: int) -> str:
        return self.names(node - self.lo)


@dataclass
class EdgeBlock:
    """One edge type: unique (src, dst) pairs in global ids, sorted by src then dst."""

    index: int
    src: np.ndarray
    dst: np.ndarray


@dataclass
class SynthGraph:
    shape: Shape
    seed: int
    blocks: list[NodeBlock]
    edges: list[EdgeBlock]

    @property
    def n_nodes(self) -> int:
        return self.blocks[-1].hi if self.blocks else 0

    @property
    def n_edges(self) -> int:
        return sum(len(e.src) for e in self.edges)

    def block_of(self, node: int) -> NodeBlock:
        for b in self.blocks:
            if b.lo <= node < b.hi:
                return b
        raise IndexError(node)

    def block(self, type_: str) -> NodeBlock:
        return next(b for b in self.blocks if b.spec.type == type_)

    def skb_json(self) -> dict:
        s = self.shape
        return {
            "name": s.name,
            "description": s.description,
            "directed": False,
            "candidate_types": list(s.candidate_types or [n.type for n in s.nodes]),
            "generator": {"tool": "afr synth", "like": s.like, "seed": self.seed,
                          "note": "benchmark data; names and texts are invented"},
            "node_types": {n.type: {"description": n.description} for n in s.nodes},
            "edge_types": {
                e.type: {"source": e.source, "target": e.target, "label": e.label,
                         "description": e.description or e.label.replace("_", " ")}
                for e in s.edges
            },
        }


def _ranking(rng: np.random.Generator, n: int) -> np.ndarray:
    """A Zipf popularity over n items: rank → item, the ranks scattered at random."""
    return rng.permutation(n)


def _draw(rng: np.random.Generator, ranked: np.ndarray, k: int) -> np.ndarray:
    """k items by Zipf popularity (exponent ZIPF_EXPONENT) over ``ranked``.

    Inverse transform of the continuous power law on [1, n+1): O(1) per draw, where a
    binary search over the discrete CDF costs ~20 cache misses (minutes at MAG size).
    """
    n = len(ranked)
    e = 1.0 - ZIPF_EXPONENT
    x = (1.0 + rng.random(k) * ((n + 1.0) ** e - 1.0)) ** (1.0 / e)
    return ranked[np.minimum(x.astype(np.int64) - 1, n - 1)]


def _attr_column(rng: np.random.Generator, a: AttrSpec, n: int) -> np.ndarray:
    if a.kind == "int":
        return rng.integers(int(a.lo), int(a.hi) + 1, n)
    if a.kind in ("float", "count"):
        v = np.clip(a.lo * np.exp(rng.normal(0.0, 1.0, n)), max(a.lo / 20, 0.01), a.hi)
        return np.round(v, 2) if a.kind == "float" else np.round(v).astype(np.int64)
    if a.kind == "rating":
        return np.clip(np.round(5.0 - rng.gamma(1.5, 0.5, n), 1), 1.0, 5.0)
    if a.kind == "date":
        start = np.datetime64(dt.date(int(a.lo), 1, 1))
        days = (np.datetime64(dt.date(int(a.hi), 12, 31)) - start).astype(int)
        return start + rng.integers(0, days + 1, n).astype("timedelta64[D]")
    if a.kind == "choice":
        return _draw(rng, _ranking(rng, len(a.choices)), n).astype(np.int16)
    raise ValueError(f"unknown attribute kind {a.kind!r}")


def _nodes(shape: Shape, n_nodes: int, rng: np.random.Generator) -> list[NodeBlock]:
    total = sum(n.share for n in shape.nodes)
    counts = [max(2, int(round(n.share / total * n_nodes))) for n in shape.nodes]
    counts[int(np.argmax(counts))] += n_nodes - sum(counts)  # exact total
    if min(counts) < 2:
        raise AfrError(f"--nodes {n_nodes} is too small for the {shape.like}-like schema "
                       f"({len(shape.nodes)} node types)")
    blocks, lo = [], 0
    for spec, n in zip(shape.nodes, counts, strict=True):
        n_phr = len(spec.qualities) * len(spec.features)
        ranked = _ranking(rng, n_phr)
        p = np.stack([_draw(rng, ranked, n), _draw(rng, ranked, n)], axis=1).astype(np.int32)
        same = p[:, 0] == p[:, 1]
        p[same, 1] = (p[same, 1] + 1) % n_phr  # two different phrases per node
        block = NodeBlock(spec, lo, lo + n, Names(spec, rng), p)
        for a in spec.attrs:
            block.attrs[a.name] = _attr_column(rng, a, n)
        blocks.append(block)
        lo += n
    return blocks


def _sorted_unique(keys: np.ndarray) -> np.ndarray:
    # Sort + neighbour compare: numpy 2's hash-based np.unique is many times slower on
    # millions of int64 keys with this distribution.
    keys.sort()
    if len(keys) == 0:
        return keys
    keep = np.empty(len(keys), dtype=bool)
    keep[0] = True
    np.not_equal(keys[1:], keys[:-1], out=keep[1:])
    return keys[keep]


def _pairs(rng: np.random.Generator, s_rank: np.ndarray, t_rank: np.ndarray, same: bool,
           m: int) -> np.ndarray:
    """``m`` distinct (source, target) keys s * n_t + t, drawn by popularity."""
    n_s, n_t = len(s_rank), len(t_rank)
    keys = np.empty(0, dtype=np.int64)
    mixed = False
    for _ in range(64):
        need = m - len(keys)
        if need <= 0:
            break
        k = int(need * 1.3) + 64
        s, t = _draw(rng, s_rank, k), _draw(rng, t_rank, k)
        if mixed:
            # Dense relations saturate their hubs: then one end of each pair is drawn
            # uniformly, which fills the count fast and keeps the hubs' high degrees.
            half = k // 2
            s[:half] = rng.integers(0, n_s, half)
            t[half:] = rng.integers(0, n_t, k - half)
        if same:
            keep = s != t
            s, t = np.minimum(s[keep], t[keep]), np.maximum(s[keep], t[keep])
        before = len(keys)
        keys = _sorted_unique(np.concatenate([keys, s.astype(np.int64) * n_t + t]))
        mixed = mixed or (len(keys) - before) < 0.5 * k
    if len(keys) > m:  # drop the surplus at random (cheaper than choosing the m to keep)
        keep = np.ones(len(keys), dtype=bool)
        keep[rng.choice(len(keys), len(keys) - m, replace=False)] = False
        keys = keys[keep]
    return keys


def _edges(shape: Shape, blocks: list[NodeBlock], n_edges: int, rng: np.random.Generator,
           progress: bool) -> list[EdgeBlock]:
    by_type = {b.spec.type: b for b in blocks}
    popularity = {b.spec.type: _ranking(rng, b.n) for b in blocks}
    total = sum(e.share for e in shape.edges)
    out = []
    with Phases([f"edges: {e.type}" for e in shape.edges], enabled=progress) as phases:
        for i, e in enumerate(shape.edges):
            phases.next(f"edges: {e.type}")
            sb, tb = by_type[e.source], by_type[e.target]
            same = e.source == e.target
            possible = sb.n * (sb.n - 1) // 2 if same else sb.n * tb.n
            m = min(int(round(e.share / total * n_edges)), int(possible * MAX_DENSITY))
            keys = _pairs(rng, popularity[e.source], popularity[e.target], same, max(m, 1))
            src = (keys // tb.n + sb.lo).astype(np.int32)
            dst = (keys % tb.n + tb.lo).astype(np.int32)
            out.append(EdgeBlock(i, src, dst))
    return out


#: Fewest nodes per node type of a synthetic graph (each type needs a few to relate).
MIN_NODES_PER_TYPE = 10


def min_nodes(shape: Shape) -> int:
    """The fewest nodes a graph of ``shape`` can have."""
    return MIN_NODES_PER_TYPE * len(shape.nodes)


def build_graph(shape: Shape, n_nodes: int, n_edges: int | None, seed: int, *,
                progress: bool = False) -> SynthGraph:
    if n_nodes < min_nodes(shape):
        raise AfrError(f"--nodes must be at least {min_nodes(shape)} for the "
                       f"{shape.like}-like schema, got {n_nodes}")
    if n_nodes > 50_000_000:
        raise AfrError(f"--nodes {n_nodes} is more than this generator supports (50M)")
    if n_edges is None:
        n_edges = int(shape.edges_per_node * n_nodes)
    if n_edges < 1:
        raise AfrError(f"--edges must be positive, got {n_edges}")
    rng = np.random.default_rng(np.random.SeedSequence([seed, 0]))
    blocks = _nodes(shape, n_nodes, rng)
    edges = _edges(shape, blocks, n_edges, rng, progress)
    return SynthGraph(shape, seed, blocks, edges)


# -- writing ------------------------------------------------------------------------------------


def write_skb_json(graph: SynthGraph, out: Path) -> None:
    (out / "skb.json").write_text(json.dumps(graph.skb_json(), indent=1) + "\n",
                                  encoding="utf-8")


@contextmanager
def _gzip_writer(path: Path) -> Iterator[gzip.GzipFile]:
    # Level 1: several times faster than the default for ~10% more bytes. No name and
    # mtime 0 in the header, so the same seed gives byte-identical files.
    with open(path, "wb") as raw, gzip.GzipFile(filename="", mode="wb", compresslevel=1,
                                                mtime=0, fileobj=raw) as gz:
        yield gz


@contextmanager
def _gzip_text(path: Path) -> Iterator[io.TextIOWrapper]:
    with _gzip_writer(path) as gz:
        fh = io.TextIOWrapper(gz, encoding="utf-8", newline="\n")
        yield fh
        fh.flush()
        fh.detach()  # the gzip stream is closed by _gzip_writer, in order


def write_nodes(graph: SynthGraph, out: Path, *, progress: bool = False) -> None:
    dumps = json.JSONEncoder(ensure_ascii=False, separators=(",", ":")).encode
    with _gzip_text(out / "nodes.jsonl.gz") as fh, \
            bar(graph.n_nodes, "writing nodes", enabled=progress, unit="node") as pbar:
        for b in graph.blocks:
            spec = b.spec
            cols = []
            for a in spec.attrs:
                col = b.attrs[a.name]
                if a.kind == "date":
                    values = np.datetime_as_string(col, unit="D").tolist()
                elif a.kind == "choice":
                    values = [a.choices[c] for c in col.tolist()]
                else:
                    values = col.tolist()
                cols.append((a.name, values))
            phrases = b.phrases.tolist()
            lines = []
            for local in range(b.n):
                name = b.names(local)
                p1, p2 = phrases[local]
                node = {"id": b.lo + local, "type": spec.type, "name": name,
                        "text": spec.text_format.format(name=name, p1=b.phrase(p1),
                                                        p2=b.phrase(p2)),
                        "attrs": {k: v[local] for k, v in cols}}
                lines.append(dumps(node))
                if len(lines) == 10_000:
                    fh.write("\n".join(lines) + "\n")
                    pbar.update(len(lines))
                    lines = []
            if lines:
                fh.write("\n".join(lines) + "\n")
                pbar.update(len(lines))


def write_edges(graph: SynthGraph, out: Path) -> None:
    """DuckDB writes plain CSV (fast), then Python compresses it at level 1: DuckDB's own
    gzip output runs at its default level on one stream and took most of the time."""
    plain = (out / ".edges.csv.tmp").resolve()
    if "'" in str(plain):
        raise AfrError(f"{out}: the output path may not contain a single quote")
    con = duckdb.connect()
    try:
        # One thread: with more, the join may emit rows in a different order each run
        # (measured), so the file would not be the same for the same seed.
        con.execute("SET threads = 1")
        con.execute("SET preserve_insertion_order = true")
        con.execute("SET enable_progress_bar = false")  # afr draws its own bars
        con.register("synth_edges", {
            "src": np.concatenate([e.src for e in graph.edges]),
            "t": np.concatenate([np.full(len(e.src), e.index, dtype=np.int16)
                                 for e in graph.edges]),
            "dst": np.concatenate([e.dst for e in graph.edges]),
        })
        con.register("synth_edge_names", {
            "i": np.arange(len(graph.shape.edges), dtype=np.int16),
            "name": np.array([e.type for e in graph.shape.edges], dtype=object),
        })
        for stmt in duckdb_sql("synth/write_edges.sql", path=str(plain)):
            con.execute(stmt)
    finally:
        con.close()
    try:
        with open(plain, "rb") as src, _gzip_writer(out / "edges.csv.gz") as gz:
            shutil.copyfileobj(src, gz, 1 << 22)
    finally:
        plain.unlink(missing_ok=True)
