"""Grounding by hand: levels, the ≥ k stop rule, directions, cycles, variable length."""

from __future__ import annotations

from pathlib import Path

from skbutil import write_skb

from afr.ground import GroundingQuery, GSymbol, GTriplet, ground, scope_schedule
from afr.ground.schedule import level_of_rank
from afr.load import load_skb_dir
from afr.store import Store

# authors a0..a5 each write one paper p0..p5; p0 cites p1; field f0 has p0, p1, p2.
SCHEMA = {"name": "g", "directed": True,
          "node_types": {"author": {}, "paper": {}, "field": {}},
          "edge_types": {"writes": {}, "cites": {}, "in_field": {}}}


def make(store: Store, tmp_path: Path, directed: bool = True) -> None:
    nodes = ([{"id": i, "type": "author", "name": f"a{i}"} for i in range(6)]
             + [{"id": 10 + i, "type": "paper", "name": f"p{i}"} for i in range(6)]
             + [{"id": 20, "type": "field", "name": "f0"}])
    edges = [(i, "writes", 10 + i) for i in range(6)] + [(10, "cites", 11)] + [
        (10 + i, "in_field", 20) for i in range(3)]
    schema = dict(SCHEMA, directed=directed)
    load_skb_dir(store, write_skb(tmp_path / "g", schema, nodes, edges), progress=False)


def q(symbols: list[GSymbol], triplets: list[GTriplet], target: str) -> GroundingQuery:
    return GroundingQuery({s.var: s for s in symbols}, tuple(triplets), target)


def test_schedule() -> None:
    assert scope_schedule(100) == [1, 2, 3, 5, 8, 12, 18, 27, 41, 62, 93]
    assert scope_schedule(1) == [1]
    assert level_of_rank(4, scope_schedule(100)) == 5
    assert level_of_rank(94, scope_schedule(100)) is None


def test_levels_follow_candidate_ranks(store: Store, tmp_path: Path) -> None:
    make(store, tmp_path)
    # the constant's candidates are authors ranked a3, a1, a5, a0, a2: a0 has rank 4 → level 5
    query = q([GSymbol("a", "author", candidates=(3, 1, 5, 0, 2)), GSymbol("p", "paper")],
              [GTriplet("a", "writes", "p")], "p")
    result = ground(store, query, k=100, l_max=10)
    assert result.answers == [(13, 1), (11, 2), (15, 3), (10, 5), (12, 5)]
    assert result.final_level == 5


def test_stop_at_first_level_with_k(store: Store, tmp_path: Path) -> None:
    make(store, tmp_path)
    query = q([GSymbol("a", "author", candidates=(3, 1, 5, 0, 2)), GSymbol("p", "paper")],
              [GTriplet("a", "writes", "p")], "p")
    result = ground(store, query, k=3, l_max=10)
    assert result.answers == [(13, 1), (11, 2), (15, 3)] and result.final_level == 3


def test_chain_and_direction(store: Store, tmp_path: Path) -> None:
    make(store, tmp_path)
    # which paper cites a paper written by a1?  p0 (10) cites p1 (11)
    chain = q([GSymbol("a", "author", candidates=(1,)), GSymbol("x", "paper"),
               GSymbol("y", "paper")],
              [GTriplet("a", "writes", "x"), GTriplet("y", "cites", "x")], "y")
    assert ground(store, chain).answers == [(10, 1)]
    reversed_ = q([GSymbol("a", "author", candidates=(1,)), GSymbol("x", "paper"),
                   GSymbol("y", "paper")],
                  [GTriplet("a", "writes", "x"), GTriplet("x", "cites", "y")], "y")
    assert ground(store, reversed_).answers == []  # directed SKB: p1 cites nothing
    undirected = q([GSymbol("a", "author", candidates=(1,)), GSymbol("x", "paper"),
                    GSymbol("y", "paper")],
                   [GTriplet("a", "writes", "x"), GTriplet("x", "cites", "y", directed=False)],
                   "y")
    assert ground(store, undirected).answers == [(10, 1)]


def test_star_with_two_constants(store: Store, tmp_path: Path) -> None:
    make(store, tmp_path)
    star = q([GSymbol("f", "field", candidates=(20,)),
              GSymbol("a", "author", candidates=(4, 2)), GSymbol("p", "paper")],
             [GTriplet("p", "in_field", "f"), GTriplet("a", "writes", "p")], "p")
    assert ground(store, star, k=5).answers == [(12, 2)]  # a2 is the 2nd candidate


def test_any_edge_type_and_unrestricted_leaf(store: Store, tmp_path: Path) -> None:
    make(store, tmp_path)
    leaf = q([GSymbol("p", "paper"), GSymbol("z", "field")], [GTriplet("p", None, "z")], "p")
    assert [a for a, _ in ground(store, leaf, k=100).answers] == [10, 11, 12]


def test_cycle_and_allowed_domain(store: Store, tmp_path: Path) -> None:
    make(store, tmp_path)
    cyc = q([GSymbol("x", "paper"), GSymbol("y", "paper"), GSymbol("f", "field")],
            [GTriplet("x", "cites", "y"), GTriplet("x", "in_field", "f"),
             GTriplet("y", "in_field", "f")], "y")
    assert ground(store, cyc).answers == [(11, 1)]
    allowed = q([GSymbol("p", "paper", allowed=(11, 12, 13)), GSymbol("f", "field")],
                [GTriplet("p", "in_field", "f")], "p")
    assert [a for a, _ in ground(store, allowed).answers] == [11, 12]


def test_variable_length(store: Store, tmp_path: Path) -> None:
    make(store, tmp_path, directed=False)
    # from a1: a1-writes-p1-cites-p0 : two hops of any type reach p0 … and f0 via p1
    hops = q([GSymbol("a", "author", candidates=(1,)), GSymbol("y", None)],
             [GTriplet("a", None, "y", True, 2, 2)], "y")
    assert sorted(a for a, _ in ground(store, hops, k=100).answers) == [1, 10, 20]


def test_disconnected_symbols_are_ignored(store: Store, tmp_path: Path) -> None:
    make(store, tmp_path)
    query = q([GSymbol("a", "author", candidates=(0,)), GSymbol("p", "paper"),
               GSymbol("lonely", "field", candidates=())],
              [GTriplet("a", "writes", "p")], "p")
    assert ground(store, query).answers == [(10, 1)]


def test_sql_is_shown_and_values_bound(store: Store, tmp_path: Path) -> None:
    make(store, tmp_path)
    query = q([GSymbol("a", "author", candidates=(0,)), GSymbol("p", "paper")],
              [GTriplet("a", "writes'; DROP TABLE edges; --", "p")], "p")
    result = ground(store, query)
    assert result.answers == [] and "DROP" not in " ".join(result.sql)
    assert store.query("SELECT count(*) FROM edges")[0][0] == 10


def test_type_checks_the_edges_imply_are_left_out(store: Store, tmp_path: Path) -> None:
    """`writes` only links authors to papers and `in_field` papers to fields: walking them
    needs no node-type check, which the load's record of endpoints lets the SQL leave out
    (a store without that record keeps every check); the answers stay the same."""
    from afr.ground import EdgeEndpoints, compile_grounding, edge_directions, edge_endpoints

    make(store, tmp_path)
    endpoints = edge_endpoints(store)
    assert endpoints is not None
    assert endpoints.reached("writes", "src", "author") == {"paper"}
    assert endpoints.reached("cites", "dst", None) == {"paper"}
    query = q([GSymbol("a", "author", candidates=(3, 1)), GSymbol("p", "paper"),
               GSymbol("f", "field")],
              [GTriplet("a", "writes", "p"), GTriplet("p", "in_field", "f")], "p")
    assert ground(store, query, k=100, l_max=10).answers == [(11, 2)]

    def type_checks(endpoints_given) -> int:
        compiled = compile_grounding(query, schema_directed=edge_directions(store),
                                     sql=store.sql, l_max=10,
                                     adjacency=store.has_edge_lists(),
                                     endpoints=endpoints_given)
        text = compiled.statements[-1]
        return text.count("type = ") - text.count("e.type = ")  # node types, not edge types

    # kept: the candidates' own type; left out: papers after `writes`, fields of papers
    assert type_checks(None) == 3 and type_checks(endpoints) == 1
    # had `writes` also linked an author to a field, the papers' check would stay
    wider = EdgeEndpoints(endpoints.pairs | {("writes", "author", "field")})
    assert type_checks(wider) == 2


def test_a_target_of_fewer_than_k_nodes_is_grounded_once(store: Store,
                                                         tmp_path: Path) -> None:
    """When the target's own domain holds fewer than k nodes (its text conditions left a
    handful), no stage can reach k: the full grounding runs alone, one statement where
    the stages would have run two, with the answers the stages would have found."""
    make(store, tmp_path)
    # 12 candidates (the last six are papers, which the type check drops): a stage at
    # level 8 would cut them
    ranked = (3, 1, 5, 0, 2, 4, 10, 11, 12, 13, 14, 15)
    query = q([GSymbol("a", "author", candidates=ranked),
               GSymbol("p", "paper", allowed=(11, 12))],
              [GTriplet("a", "writes", "p")], "p")
    ground(store, query, k=20, l_max=100)  # the store's facts (schema, edges) read once
    before = store.statements
    result = ground(store, query, k=20, l_max=100)
    assert store.statements - before == 1
    assert result.answers == [(11, 2), (12, 5)]
    wider = q([GSymbol("a", "author", candidates=ranked), GSymbol("p", "paper")],
              [GTriplet("a", "writes", "p")], "p")
    before = store.statements
    assert ground(store, wider, k=20, l_max=100).answers[:2] == [(13, 1), (11, 2)]
    assert store.statements - before == 2  # stage 8, then the full grounding


def test_typed_domains_skip_their_type_check(store: Store, tmp_path: Path) -> None:
    """A constant whose candidates are known to be of its type (``typed``) is not joined
    with the nodes again; one that is not known so is, and loses its other-typed
    candidates."""
    make(store, tmp_path)
    triplets = [GTriplet("a", "writes", "p")]
    typed = q([GSymbol("a", "author", candidates=(3, 1), typed=True), GSymbol("p", "paper")],
              triplets, "p")
    result = ground(store, typed, k=20, l_max=10)
    assert result.answers == [(13, 1), (11, 2)]
    assert "JOIN nodes" not in result.sql[-1]
    unknown = q([GSymbol("a", "author", candidates=(3, 10, 1)), GSymbol("p", "paper")],
                triplets, "p")
    result = ground(store, unknown, k=20, l_max=10)
    assert "JOIN nodes" in result.sql[-1]
    assert result.answers == [(13, 1), (11, 3)]  # paper 10 is no author: checked out
