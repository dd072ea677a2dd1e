"""Grounding cases computed by hand, checked against the SQL grounding on both stores and
against the independent oracle (tests/grounding_oracle.py): untyped patterns on
mixed-direction SKBs, exact name matches at level 1, the cut at k through every stage,
candidates past l_max, and provenance. The oracle itself imports nothing of afr."""

from __future__ import annotations

import ast
from pathlib import Path

import grounding_oracle as oracle
import pytest
from skbutil import write_skb

from afr.ground import GroundingQuery, GSymbol, GTriplet, ground
from afr.ground.run import STAGES, witnesses
from afr.load import load_skb_dir
from afr.store import Store


def test_the_oracle_imports_nothing_of_afr() -> None:
    tree = ast.parse((Path(__file__).parent / "grounding_oracle.py").read_text("utf-8"))
    imported = [n.module for n in ast.walk(tree) if isinstance(n, ast.ImportFrom)] + [
        a.name for n in ast.walk(tree) if isinstance(n, ast.Import) for a in n.names]
    assert imported and not [m for m in imported if m and m.split(".")[0] == "afr"]


def test_the_schedule_by_hand() -> None:
    assert oracle.levels(100) == [1, 2, 3, 5, 8, 12, 18, 27, 41, 62, 93]
    assert oracle.levels(1) == [1] and oracle.levels(0) == []
    schedule = oracle.levels(100)
    # rank 4 enters at 5; with four exact matches, ranks 1-4 at 1 and the fifth at 2
    assert [oracle.entry_level(r, 0, schedule) for r in (1, 4, 93, 94)] == [1, 5, 93, None]
    assert [oracle.entry_level(r, 4, schedule) for r in (1, 4, 5, 6, 96, 97)] == [
        1, 1, 2, 3, 93, None]


# -- untyped patterns on a mixed-direction SKB -------------------------------------------
#   5 -parent-> 1 -parent-> 0 -parent-> 4        parent: directed
#   2 -near-> 0 -near-> 3                         near: undirected (its own flag)

def _mixed(near_directed: bool) -> dict:
    return {"name": "mixed", "directed": True, "node_types": {"a": {}},
            "edge_types": {"parent": {}, "near": {"directed": near_directed}}}


NODES = [{"id": i, "type": "a", "name": f"n{i}"} for i in range(6)]
EDGES = [(5, "parent", 1), (1, "parent", 0), (0, "parent", 4), (2, "near", 0),
         (0, "near", 3)]


def _towards_n0(edge: str | None, arrow: bool, hops: int = 1) -> GroundingQuery:
    """(y)-[:edge*hops]->(c) with c = node 0 (``arrow`` False: ``-[…]-``)."""
    return GroundingQuery({"y": GSymbol("y", None), "c": GSymbol("c", "a", candidates=(0,))},
                          (GTriplet("y", edge, "c", arrow, hops, hops),), "y")


# (edge, arrow, hops) → answers when `near` is undirected (mixed) / directed (all directed)
BY_HAND = {
    (None, True, 1): ([1, 2, 3, 4], [1, 2]),  # mixed: the arrow is not followed at all
    (None, False, 1): ([1, 2, 3, 4], [1, 2, 3, 4]),
    ("parent", True, 1): ([1], [1]),
    ("near", True, 1): ([2, 3], [2]),
    (None, True, 2): ([0, 5], [5]),  # mixed: 0-1-5, and back to 0 over any neighbour
}


@pytest.mark.parametrize("case", sorted(BY_HAND, key=str))
@pytest.mark.parametrize("near_directed", [False, True], ids=["mixed", "all-directed"])
def test_untyped_patterns_on_a_mixed_direction_skb(store: Store, tmp_path: Path, case,
                                                   near_directed: bool) -> None:
    schema = _mixed(near_directed)
    load_skb_dir(store, write_skb(tmp_path / "skb", schema, NODES, EDGES), progress=False)
    expected = BY_HAND[case][near_directed]
    # integer SKB ids are the store's node ids
    assert sorted(n for n, _ in ground(store, _towards_n0(*case)).answers) == expected
    skb = oracle.Skb({n["id"]: "a" for n in NODES}, EDGES, True, ["parent", "near"],
                     {"near": near_directed})
    assert sorted(n for n, _ in oracle.ground(skb, _towards_n0(*case), k=20,
                                              l_max=100).answers) == expected


# -- levels, the cut at k, stages --------------------------------------------------------
# 40 nodes of type a (ids 0-39), each with one r edge to its own b (ids 100-139); the
# constant's candidates rank the a's 0, 1, 2, …

STAR_SCHEMA = {"name": "pairs", "directed": True, "node_types": {"a": {}, "b": {}},
               "edge_types": {"r": {}}}
STAR_NODES = [{"id": i, "type": "a", "name": f"a{i}"} for i in range(40)] + [
    {"id": 100 + i, "type": "b", "name": f"b{i}"} for i in range(40)]
STAR_EDGES = [(i, "r", 100 + i) for i in range(40)]


def _pairs(lead: int = 0) -> GroundingQuery:
    return GroundingQuery({"c": GSymbol("c", "a", candidates=tuple(range(40)), lead=lead),
                           "y": GSymbol("y", "b")}, (GTriplet("c", "r", "y"),), "y")


def _levels(lead: int, count: int) -> list[int]:
    """By hand: the level at which the i-th pair (0-based) enters."""
    plain = [1, 2, 3, 5, 5, 8, 8, 8, 12, 12, 12, 12] + [18] * 6 + [27] * 9 + [41] * 13
    if lead < 2:
        return plain[:count]
    # the first `lead` at level 1, then the schedule from its second place on
    return ([1] * lead + plain[1:])[:count]


@pytest.mark.parametrize(("k", "lead", "count", "final", "stage"), [
    (5, 0, 5, 5, "stage 8"),  # five answers by level 5: the first stage is enough
    (10, 0, 12, 12, "stage 27"),  # 8 by level 8, the whole level 12 makes 12
    (30, 0, 40, 41, "full"),  # 27 by level 27: only all candidates reach 30
    (100, 0, 40, 41, "full"),  # k never reached: every answer, final = the last level
    (7, 3, 7, 5, "stage 8"),  # three exact matches share level 1: 3, 4, 5, 7 by level 5
])
def test_levels_and_the_cut_at_k_through_every_stage(store: Store, tmp_path: Path, k: int,
                                                     lead: int, count: int, final: int,
                                                     stage: str) -> None:
    load_skb_dir(store, write_skb(tmp_path / "skb", STAR_SCHEMA, STAR_NODES, STAR_EDGES),
                 progress=False)
    query = _pairs(lead)
    expected = [(100 + i, level) for i, level in enumerate(_levels(lead, count))]
    expected.sort(key=lambda a: (a[1], a[0]))
    for stages in (STAGES, ()):  # staged as afr does, and in one full grounding
        got = ground(store, query, k=k, l_max=100, stages=stages)
        assert (got.answers, got.final_level) == (expected, final), stages
    # the stage that answered: the statement binds only the candidates it needed
    staged = ground(store, query, k=k, l_max=100)
    bound = max(len(v) for name, v in staged.params.items() if name.startswith("c"))
    extra = max(lead - 1, 0)  # exact matches beyond the first share its place
    assert bound == {"stage 8": 8 + extra, "stage 27": 27 + extra, "full": 40}[stage]
    skb = oracle.Skb({n["id"]: n["type"] for n in STAR_NODES}, STAR_EDGES, True, ["r"])
    reference = oracle.ground(skb, _pairs(lead), k=k, l_max=100)
    assert (reference.final_level, len(reference.answers)) == (final, count)


def test_candidates_past_the_last_level_never_enter(store: Store, tmp_path: Path) -> None:
    load_skb_dir(store, write_skb(tmp_path / "skb", STAR_SCHEMA, STAR_NODES, STAR_EDGES),
                 progress=False)
    # l_max = 10: levels 1, 2, 3, 5, 8; the ninth candidate on never enters
    got = ground(store, _pairs(), k=100, l_max=10)
    assert [n for n, _ in got.answers] == list(range(100, 108)) and got.final_level == 8
    skb = oracle.Skb({n["id"]: n["type"] for n in STAR_NODES}, STAR_EDGES, True, ["r"])
    assert [n for n, _ in oracle.ground(skb, _pairs(), k=100, l_max=10).answers] == list(
        range(100, 108))


# -- provenance ------------------------------------------------------------------------
# Candidates ranked 13, 11, 12, 10, 20, 21, the first four exact matches (level 1). The
# answer 0 is linked by r to 10 and 12 and by s to 12; the answer 2 by r to 10-13 and by s
# to 13; node 1 by s to 20 and by r to 21 only.

PROV_SCHEMA = {"name": "prov", "directed": False, "node_types": {"c": {}, "y": {}},
               "edge_types": {"r": {}, "s": {}}}
PROV_NODES = [{"id": i, "type": "y", "name": f"y{i}"} for i in (0, 1, 2)] + [
    {"id": i, "type": "c", "name": f"c{i}"} for i in (10, 11, 12, 13, 20, 21)]
PROV_EDGES = [(10, "r", 0), (12, "r", 0), (12, "s", 0)] + [
    (i, "r", 2) for i in (10, 11, 12, 13)] + [(13, "s", 2), (20, "s", 1), (21, "r", 1)]


def test_provenance_by_hand(store: Store, tmp_path: Path) -> None:
    load_skb_dir(store, write_skb(tmp_path / "skb", PROV_SCHEMA, PROV_NODES, PROV_EDGES),
                 progress=False)
    query = GroundingQuery({"c": GSymbol("c", "c", candidates=(13, 11, 12, 10, 20, 21),
                                         lead=4), "y": GSymbol("y", "y")},
                           (GTriplet("c", "r", "y"), GTriplet("y", "s", "c")), "y")
    answers = ground(store, query, k=20, l_max=10).answers
    # 1 has an r neighbour (21) and an s neighbour (20) among the candidates, but no
    # candidate has both: it is never an answer
    assert answers == [(0, 1), (2, 1)]

    def w(node: int, rank: int) -> dict[str, int]:
        return {"node": node, "rank": rank, "level": 1}

    # lowest level, then lowest id; a candidate linked twice (12 to 0) once; three at most
    expected = {0: {"c": [w(10, 4), w(12, 3)]}, 2: {"c": [w(10, 4), w(11, 2), w(12, 3)]}}
    assert witnesses(store, query, answers, l_max=10) == expected
    skb = oracle.Skb({n["id"]: n["type"] for n in PROV_NODES}, PROV_EDGES, False, ["r", "s"])
    assert oracle.provenance(skb, query, answers, l_max=10) == expected
    assert oracle.ground(skb, query, k=20, l_max=10).answers == answers
