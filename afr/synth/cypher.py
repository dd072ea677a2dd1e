"""Query specs for generated questions, their Cypher text, and LLM-like mistakes in them.

A ``QuerySpec`` is the relational part of a question: typed symbols (constants carry a
name) and triplets oriented along the stored edge direction. ``render`` writes it as an
LLM would (labels from skb.json, ``{name: "…"}`` for constants, ``RETURN y.name``);
``add_noise`` returns a copy with one or two typical mistakes.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field, replace

import numpy as np

from afr.cypher.model import Condition, QueryGraph, Symbol, Triplet
from afr.cypher.render import render_cypher

NOISE_KINDS = ("misspelled_name", "partial_name", "reversed_edge", "dropped_condition",
               "extra_condition", "wrong_type")


@dataclass(frozen=True)
class Sym:
    var: str
    type: str
    name: str | None = None  # a constant when set
    node: int | None = None  # the node the constant was taken from (never rendered)


@dataclass(frozen=True)
class Trip:
    src: str
    edge: str  # edge type key
    dst: str
    reversed: bool = False  # written against the stored direction (a mistake)


@dataclass
class QuerySpec:
    target: str
    symbols: dict[str, Sym]
    triplets: list[Trip]
    noise: list[str] = field(default_factory=list)

    def copy(self) -> QuerySpec:
        return QuerySpec(self.target, dict(self.symbols), list(self.triplets), list(self.noise))

    def constants(self) -> list[str]:
        return [v for v, s in self.symbols.items() if s.name is not None]


def render(q: QuerySpec, edge_labels: dict[str, str]) -> str:
    """MATCH … RETURN y.name, the target's label first, later mentions by variable only
    (``afr.cypher.render``: the one renderer)."""
    graph = QueryGraph(target=q.target)
    for var, s in q.symbols.items():
        conditions = [Condition("name", "=", s.name)] if s.name is not None else []
        graph.symbols[var] = Symbol(var, s.type, conditions)
    order = sorted(q.triplets, key=lambda t: q.target not in (t.src, t.dst))
    triplets = [Triplet(t.dst, edge_labels[t.edge], t.src) if t.reversed
                else Triplet(t.src, edge_labels[t.edge], t.dst) for t in order]
    graph.triplets = triplets
    return render_cypher(graph, left=[t.src for t in order], return_property="name")


# -- mistakes ------------------------------------------------------------------------------------

_KEYBOARD_NEIGHBOURS = {
    "a": "qsz", "b": "vn", "c": "xv", "d": "sf", "e": "wr", "f": "dg", "g": "fh", "h": "gj",
    "i": "uo", "j": "hk", "k": "jl", "l": "k", "m": "n", "n": "bm", "o": "ip", "p": "o",
    "q": "w", "r": "et", "s": "ad", "t": "ry", "u": "yi", "v": "cb", "w": "qe", "x": "zc",
    "y": "tu", "z": "x",
}


def misspell(name: str, rng: np.random.Generator) -> str:
    """One or two typing slips: swapped, dropped, doubled or neighbouring letters."""
    out = name
    for _ in range(1 + int(rng.random() < 0.4)):
        letters = [i for i, c in enumerate(out) if c.isalpha()]
        if len(letters) < 2:
            break
        i = letters[int(rng.integers(len(letters)))]
        op = int(rng.integers(4))
        if op == 0 and i + 1 < len(out) and out[i + 1] != out[i]:
            out = out[:i] + out[i + 1] + out[i] + out[i + 2:]
        elif op == 1:
            out = out[:i] + out[i + 1:]
        elif op == 2:
            out = out[:i] + out[i] + out[i:]
        else:
            near = _KEYBOARD_NEIGHBOURS.get(out[i].lower(), "e")
            c = near[int(rng.integers(len(near)))]
            out = out[:i] + (c.upper() if out[i].isupper() else c) + out[i + 1:]
    if out == name:  # e.g. a swap of equal letters: fall back to dropping the last letter
        out = name[:-1]
    return out


def partial(name: str, rng: np.random.Generator) -> str:
    """What a hurried writer keeps of a name: some of its words, or its start."""
    words = name.split()
    if len(words) >= 2:
        drop = int(rng.integers(len(words)))
        return " ".join(w for i, w in enumerate(words) if i != drop)
    cut = max(2, int(len(name) * 0.6))
    return name[:cut] if cut < len(name) else name[:-1]


def applicable(q: QuerySpec, kind: str) -> bool:
    if kind in ("misspelled_name", "partial_name"):
        return bool(q.constants())
    if kind == "reversed_edge":
        return any(not t.reversed for t in q.triplets)
    if kind == "dropped_condition":
        return bool(q.triplets)
    return True  # extra_condition (needs the caller's help), wrong_type


@dataclass
class NoiseContext:
    """What the noise needs from the graph: node types, and a sampler for extra conditions.

    ``extra(q, rng)`` returns (edge type, other type, src_is_target, name) for a plausible
    additional condition on the target, or None.
    """

    node_types: list[str]
    extra: Callable[[QuerySpec, np.random.Generator], tuple[str, str, bool, str] | None]


def apply_noise(q: QuerySpec, kind: str, ctx: NoiseContext, rng: np.random.Generator
                ) -> QuerySpec | None:
    q = q.copy()
    if kind in ("misspelled_name", "partial_name"):
        var = q.constants()[int(rng.integers(len(q.constants())))]
        s = q.symbols[var]
        name = misspell(s.name or "", rng) if kind == "misspelled_name" else partial(
            s.name or "", rng)
        if not name or name == s.name:
            return None
        q.symbols[var] = replace(s, name=name)
    elif kind == "reversed_edge":
        options = [i for i, t in enumerate(q.triplets) if not t.reversed]
        i = options[int(rng.integers(len(options)))]
        q.triplets[i] = replace(q.triplets[i], reversed=True)
    elif kind == "dropped_condition":
        consts = q.constants()
        if len(consts) >= 2 or len(q.triplets) >= 2:
            # Drop the triplet farthest from the target (its constant goes with it).
            leaf = next((t for t in reversed(q.triplets)
                         if q.target not in (t.src, t.dst)), q.triplets[-1])
            q.triplets.remove(leaf)
            used = {v for t in q.triplets for v in (t.src, t.dst)} | {q.target}
            q.symbols = {v: s for v, s in q.symbols.items() if v in used}
        else:  # one condition only: the constant loses its name and becomes a variable
            var = consts[0]
            q.symbols[var] = replace(q.symbols[var], name=None)
    elif kind == "extra_condition":
        found = ctx.extra(q, rng)
        if found is None:
            return None
        edge, other_type, target_is_src, name = found
        var = f"x{len(q.symbols)}"
        q.symbols[var] = Sym(var, other_type, name)
        q.triplets.append(Trip(q.target, edge, var) if target_is_src
                          else Trip(var, edge, q.target))
    elif kind == "wrong_type":
        var = list(q.symbols)[int(rng.integers(len(q.symbols)))]
        s = q.symbols[var]
        others = [t for t in ctx.node_types if t != s.type]
        if not others:
            return None
        q.symbols[var] = replace(s, type=others[int(rng.integers(len(others)))])
    q.noise.append(kind)
    return q


def add_noise(q: QuerySpec, ctx: NoiseContext, rng: np.random.Generator) -> QuerySpec | None:
    """A copy of ``q`` with one (70 %) or two (30 %) different mistakes, or None."""
    n = 1 if rng.random() < 0.7 else 2
    out = q
    kinds = list(NOISE_KINDS)
    for _ in range(n):
        options = [k for k in kinds if applicable(out, k)]
        for _attempt in range(4):
            if not options:
                break
            kind = options[int(rng.integers(len(options)))]
            noisy = apply_noise(out, kind, ctx, rng)
            if noisy is not None:
                out = noisy
                kinds.remove(kind)
                break
            options.remove(kind)
    return out if out.noise else None
