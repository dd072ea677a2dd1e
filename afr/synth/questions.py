"""STaRK-like questions over a generated graph, with gold answers from the oracle.

As in STaRK: sample a relational template through real edges (1–2 hops, 1–2 named
anchors), compute its answer set, then pick a textual property of one answer (a phrase
of its text, or an attribute value) and keep as gold the answers that share it. The
relational answer set comes from afr's reference grounding (afr/ground/oracle.py, the
paper's Algorithm 2) run on the part of the graph the query can reach; numpy adjacency
(CSR) is only used to sample templates and to cut that neighbourhood out.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from afr.ground.oracle import oracle_ground
from afr.ground.query import GroundingQuery, GSymbol, GTriplet
from afr.progress import bar
from afr.synth.cypher import NoiseContext, QuerySpec, Sym, Trip, add_noise, render
from afr.synth.graph import NodeBlock, SynthGraph

MAX_GOLD = 20
# Neighbourhoods larger than this are skipped (the oracle runs on Python sets).
MAX_BALL_EDGES = 60_000
# One anchor with more answers than this: no property keeps only 1–20 of them.
MAX_ONE_ANCHOR = 15_000
# A hop out of a hub with more neighbours than this is not expanded for 2-hop templates.
MAX_FANOUT = 3_000

_FRAMES = ("Which {noun} {rel}, {prop}?", "Which {noun} {rel} is also {prop}?",
           "Find {a_noun} {rel}, {prop}.", "I am looking for {a_noun} {rel}, {prop}.",
           "Name {a_noun} {rel}, {prop}.")


def _a(noun: str) -> str:
    return ("an " if noun[:1].lower() in "aeiou" else "a ") + noun


@dataclass
class Question:
    id: int
    query: str
    answer_ids: list[int]
    target_type: str
    cypher: str
    cypher_noisy: str
    noise: str
    spec: QuerySpec
    relational: int  # size of the relational answer set, before the property


class Adjacency:
    """Per edge type, CSR in both directions over global node ids (undirected use)."""

    def __init__(self, graph: SynthGraph) -> None:
        n = graph.n_nodes
        self.fwd: list[tuple[np.ndarray, np.ndarray]] = []
        self.rev: list[tuple[np.ndarray, np.ndarray]] = []
        for e in graph.edges:
            # src is sorted (keys were sorted by src, then dst).
            self.fwd.append((np.concatenate([[0], np.cumsum(np.bincount(e.src, minlength=n))]),
                             e.dst))
            order = np.argsort(e.dst, kind="stable")
            self.rev.append((np.concatenate([[0], np.cumsum(np.bincount(e.dst, minlength=n))]),
                             e.src[order]))

    def out(self, e: int, node: int) -> np.ndarray:
        ptr, idx = self.fwd[e]
        return idx[ptr[node]:ptr[node + 1]]

    def inn(self, e: int, node: int) -> np.ndarray:
        ptr, idx = self.rev[e]
        return idx[ptr[node]:ptr[node + 1]]

    def nbrs(self, e: int, node: int) -> np.ndarray:
        return np.concatenate([self.out(e, node), self.inn(e, node)])

    def degree(self, e: int, node: int) -> int:
        (fp, _), (rp, _) = self.fwd[e], self.rev[e]
        return int(fp[node + 1] - fp[node] + rp[node + 1] - rp[node])

    def degrees(self, e: int, nodes: np.ndarray) -> np.ndarray:
        (fp, _), (rp, _) = self.fwd[e], self.rev[e]
        return fp[nodes + 1] - fp[nodes] + rp[nodes + 1] - rp[nodes]

    def edges_at(self, e: int, node: int) -> list[tuple[int, int]]:
        """The stored (src, dst) pairs of type e touching ``node``."""
        return ([(node, x) for x in self.out(e, node).tolist()]
                + [(x, node) for x in self.inn(e, node).tolist()])


class QuestionMaker:
    def __init__(self, graph: SynthGraph, seed: int, noise: float) -> None:
        self.g = graph
        self.shape = graph.shape
        self.adj = Adjacency(graph)
        self.rng = np.random.default_rng(np.random.SeedSequence([seed, 1]))
        self.noise = noise
        self.labels = {e.type: e.label for e in self.shape.edges}
        self.edge_index = {e.type: i for i, e in enumerate(self.shape.edges)}
        self.types = [b.spec.type for b in graph.blocks]
        self.targets = list(self.shape.candidate_types or self.types)
        self.noise_ctx = NoiseContext(self.types, self._extra_condition)
        self.seen: set[tuple] = set()
        self._gold_now: np.ndarray | None = None  # the gold of the question being noised
        self.type_idx = np.empty(graph.n_nodes, dtype=np.int16)
        for i, b in enumerate(graph.blocks):
            self.type_idx[b.lo:b.hi] = i

    # -- helpers ---------------------------------------------------------------------------

    def _pick(self, seq):
        return seq[int(self.rng.integers(len(seq)))]

    def _type(self, node: int) -> str:
        return self.types[self.type_idx[node]]

    def _incident(self, type_: str) -> list[int]:
        return [i for i, e in enumerate(self.shape.edges) if type_ in (e.source, e.target)]

    def _other(self, e: int, type_: str) -> str:
        spec = self.shape.edges[e]
        return spec.target if spec.source == type_ else spec.source

    def _trip(self, e: int, a: str, a_type: str, b: str) -> Trip:
        """A triplet between symbols a (of a_type) and b, along the stored direction."""
        spec = self.shape.edges[e]
        return Trip(a, spec.type, b) if spec.source == a_type else Trip(b, spec.type, a)

    def _phrase(self, e: int, about_type: str, obj: str) -> str:
        spec = self.shape.edges[e]
        return (spec.from_source if spec.source == about_type else spec.from_target).format(obj)

    def _random_neighbour(self, e: int, node: int, exclude: set[int]) -> int | None:
        nb = self.adj.nbrs(e, node)
        if len(nb) == 0:
            return None
        for _ in range(4):
            x = int(nb[int(self.rng.integers(len(nb)))])
            if x not in exclude:
                return x
        return None

    # -- templates -------------------------------------------------------------------------

    def _template(self, y: int, t_type: str):
        """(QuerySpec, relational phrase, local edges) of a random template around y."""
        incident = [e for e in self._incident(t_type) if self.adj.degree(e, y) > 0]
        if not incident:
            return None
        shape = self._pick(["one", "one", "two_anchors", "two_hops"])
        name = self.g.block_of
        if shape in ("one", "two_anchors"):
            picks = [self._pick(incident)]
            if shape == "two_anchors":
                picks.append(self._pick(incident))
            symbols = {"y": Sym("y", t_type)}
            triplets, phrases, edges, anchors = [], [], [], set()
            for i, e in enumerate(picks):
                a = self._random_neighbour(e, y, anchors | {y})
                limit = MAX_BALL_EDGES if shape == "two_anchors" else MAX_ONE_ANCHOR
                if a is None or self.adj.degree(e, a) > limit:
                    return None
                anchors.add(a)
                a_type = self._type(a)
                var = f"c{i}"
                symbols[var] = Sym(var, a_type, name(a).name(a), a)
                triplets.append(self._trip(e, "y", t_type, var))
                phrases.append(self._phrase(e, t_type, name(a).name(a)))
                edges += [(s, self.shape.edges[e].type, d) for s, d in self.adj.edges_at(e, a)]
            rel = " and ".join(phrases)
            return QuerySpec("y", symbols, triplets), rel, edges
        # two hops: y -e1- v -e2- a
        e1 = self._pick(incident)
        v = self._random_neighbour(e1, y, {y})
        if v is None:
            return None
        v_type = self._type(v)
        second = [e for e in self._incident(v_type) if self.adj.degree(e, v) > 0]
        e2 = self._pick(second)
        a = self._random_neighbour(e2, v, {y, v})
        if a is None:
            return None
        a_type = self._type(a)
        nb = self.adj.nbrs(e2, a)
        mids = nb[self.type_idx[nb] == self.types.index(v_type)]
        if len(mids) > MAX_FANOUT or (len(nb) + int(self.adj.degrees(e1, mids).sum())
                                      > MAX_BALL_EDGES):
            return None
        edges = [(s, self.shape.edges[e2].type, d) for s, d in self.adj.edges_at(e2, a)]
        for m in mids.tolist():
            edges += [(s, self.shape.edges[e1].type, d) for s, d in self.adj.edges_at(e1, m)]
        a_name = name(a).name(a)
        symbols = {"y": Sym("y", t_type), "v": Sym("v", v_type), "c0": Sym("c0", a_type,
                                                                          a_name, a)}
        triplets = [self._trip(e1, "y", t_type, "v"), self._trip(e2, "v", v_type, "c0")]
        inner = f"{_a(self.shape.noun(v_type))} {self._phrase(e2, v_type, a_name)}"
        return QuerySpec("y", symbols, triplets), self._phrase(e1, t_type, inner), edges

    def _relational(self, q: QuerySpec, edges: list[tuple[int, str, int]]) -> set[int]:
        """The oracle's answer set of the template, on its neighbourhood."""
        ends = np.unique(np.array([n for s, _, d in edges for n in (s, d)], dtype=np.int64))
        node_types = dict(zip(ends.tolist(), (self.types[i] for i in self.type_idx[ends]),
                              strict=True))
        for sym in q.symbols.values():
            if sym.node is not None:
                node_types[sym.node] = sym.type
        gsyms = {v: GSymbol(v, s.type, candidates=(s.node,) if s.node is not None else None)
                 for v, s in q.symbols.items()}
        gq = GroundingQuery(gsyms, tuple(GTriplet(t.src, t.edge, t.dst) for t in q.triplets),
                            q.target)
        result = oracle_ground(edges, node_types, gq, k=1, l_max=1, directed_skb=False)
        anchors = {s.node for s in q.symbols.values() if s.node is not None}
        return {a for a, _ in result.answers} - anchors

    # -- properties ------------------------------------------------------------------------

    def _properties(self, block: NodeBlock, y: int, rel: np.ndarray):
        """Candidate (wording, gold array) pairs from y's text phrases and attributes."""
        local_y, local = y - block.lo, rel - block.lo
        out = []
        n_feat = len(block.spec.features)
        for pid in block.phrases[local_y]:
            # the whole phrase ("rapid renal clearance") or only its feature ("renal
            # clearance"): the latter is shared by more nodes, so gold sets grow
            has = (block.phrases[local] == pid).any(axis=1)
            wording = self._pick(self.shape.property_words).format(block.phrase(pid))
            out.append((wording, rel[has]))
            has = (block.phrases[local] % n_feat == pid % n_feat).any(axis=1)
            feature = block.spec.features[int(pid) % n_feat]
            out.append((self._pick(self.shape.property_words).format(feature), rel[has]))
        for a in block.spec.attrs:
            if a.ask is None:
                continue
            col = block.attrs[a.name]
            value = col[local_y]
            if a.ask == "eq":
                has, shown = col[local] == value, str(value)
            elif a.ask == "year":
                years = col.astype("datetime64[Y]").astype(int) + 1970
                has, shown = years[local] == years[local_y], str(years[local_y])
            elif a.ask == "lt":
                step = 10 if value < 100 else 50 if value < 500 else 100
                thr = (math.floor(value / step) + 1) * step
                has, shown = col[local] < thr, str(thr)
            else:  # ge
                thr = math.floor(float(value) * 2) / 2
                has, shown = col[local] >= thr, f"{thr:g}"
            out.append((a.wording.format(shown), rel[has]))
        order = self.rng.permutation(len(out))
        return [out[i] for i in order]

    # -- noise -----------------------------------------------------------------------------

    def _extra_condition(self, q: QuerySpec, rng: np.random.Generator):
        t_type = q.symbols[q.target].type
        incident = self._incident(t_type)
        if not incident:
            return None
        e = incident[int(rng.integers(len(incident)))]
        spec = self.shape.edges[e]
        other = self._other(e, t_type)
        gold = self._gold_now
        node = None
        if gold is not None and len(gold) and rng.random() < 0.5:
            # plausible: something one answer really is related to
            node = self._random_neighbour(e, int(gold[int(rng.integers(len(gold)))]), set())
        if node is None:
            block = self.g.block(other)
            node = int(block.lo + rng.integers(block.n))
        return spec.type, other, spec.source == t_type, self.g.block_of(node).name(node)

    # -- the loop --------------------------------------------------------------------------

    def make(self, n_questions: int, *, progress: bool = False) -> list[Question]:
        out: list[Question] = []
        weights = np.array([math.sqrt(self.g.block(t).n) for t in self.targets])
        weights /= weights.sum()
        with bar(n_questions, "questions", enabled=progress, unit="q") as pbar:
            for _ in range(max(200, n_questions * 200)):
                if len(out) >= n_questions:
                    break
                t_type = self.targets[int(self.rng.choice(len(self.targets), p=weights))]
                block = self.g.block(t_type)
                y = int(block.lo + self.rng.integers(block.n))
                made = self._template(y, t_type)
                if made is None:
                    continue
                q, rel_text, edges = made
                if len(edges) > MAX_BALL_EDGES:
                    continue
                rel = self._relational(q, edges)
                if y not in rel:  # cannot happen unless the oracle and sampler disagree
                    raise AssertionError(f"oracle lost the sampled answer {y} of {q}")
                rel_arr = np.array(sorted(rel), dtype=np.int64)
                gold_cypher = render(q, self.labels)
                for wording, gold in self._properties(block, y, rel_arr):
                    key = (gold_cypher, wording)
                    if not 1 <= len(gold) <= MAX_GOLD or key in self.seen:
                        continue
                    self.seen.add(key)
                    frame = self._pick(_FRAMES)
                    if "is also" in frame and wording.startswith(("whose", "with")):
                        frame = _FRAMES[0]
                    noun = self.shape.noun(t_type)
                    text = frame.format(noun=noun, a_noun=_a(noun), rel=rel_text,
                                        prop=wording)
                    noisy, noise = gold_cypher, ""
                    if self.rng.random() < self.noise:
                        self._gold_now = gold
                        for _attempt in range(4):
                            nq = add_noise(q, self.noise_ctx, self.rng)
                            if nq is not None and render(nq, self.labels) != gold_cypher:
                                noisy, noise = render(nq, self.labels), "+".join(nq.noise)
                                break
                        self._gold_now = None
                    out.append(Question(len(out), text[:1].upper() + text[1:],
                                        [int(g) for g in gold], t_type, gold_cypher, noisy,
                                        noise, q, len(rel)))
                    pbar.update(1)
                    break
        return out
