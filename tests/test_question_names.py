"""The names a question gives to what its Cypher misspelt or left unnamed (issue 27: the
mistakes an LLM makes in Cypher). "Find a paper written by Ben O. Suzuki" written as
``(a:author)-[:writes]->(y:paper)`` grounds every author's papers; the question's confident
link names the end, and only Ben's papers ground. Nothing is named for a path's middle, for
an ordinary word, for a name the query already writes (in part), for two unnamed ends of
one type, or without the question. A name no node has ("Ben O. Suzkui", "Suzuki") becomes
the question's like one; a name some node has, or one like none, stays. DuckDB and
PostgreSQL."""

from __future__ import annotations

from pathlib import Path

from settings_util import settings_of
from skbutil import write_skb

from afr.cypher.grammar import parse_cypher
from afr.cypher.resolve import resolve
from afr.embed.hashing import HashingEmbedder
from afr.lexical import build_lexical_index
from afr.load import load_skb_dir
from afr.methods.af.grounding import UNMENTIONED, ground_cypher
from afr.methods.af.question_names import (
    NAME_FROM_QUESTION,
    NAME_RESPELLED,
    names_from_question,
    unmentioned_constants,
)
from afr.pipeline.ask import open_session
from afr.store import Store
from afr.vectors import embed_store

WRITES = "author_writes_paper"
CITES = "paper_cites_paper"
SCHEMA = {
    "name": "papers", "directed": True, "candidate_types": ["paper"],
    "node_types": {"paper": {}, "author": {}},
    "edge_types": {"writes": {"source": "author", "target": "paper", "label": WRITES},
                   "cites": {"source": "paper", "target": "paper", "label": CITES}},
}
AUTHORS = {100: "Ben O. Suzuki", 101: "Ana Lee", 102: "Pat"}
PAPERS = {1: "Sparse routing of legal documents", 2: "Dense caching layers",
          3: "Robust hashing at scale", 4: "Caching for routing"}
EDGES = [(100, "writes", 1), (100, "writes", 2), (101, "writes", 3), (102, "writes", 4),
         (3, "cites", 1), (4, "cites", 2)]
UNNAMED = f"MATCH (a:author)-[:{WRITES}]->(y:paper) RETURN y"


def _session(store: Store, tmp_path: Path):
    nodes = [{"id": i, "type": "author", "name": n, "text": f"the author {n}"}
             for i, n in AUTHORS.items()]
    nodes += [{"id": i, "type": "paper", "name": n, "text": f"a paper: {n}"}
              for i, n in PAPERS.items()]
    load_skb_dir(store, write_skb(tmp_path / "skb", SCHEMA, nodes, EDGES), progress=False)
    embed_store(store, HashingEmbedder(32), progress=False)
    build_lexical_index(store, progress=False)
    return open_session(store, settings_of(llm__offline=True, ask__k=3, af__l_max=2,
                                           rerank__method="none"))


def _answers(session, cypher: str, question: str | None) -> tuple[list[int], list]:
    """The answers of the first scope level (the names' own nodes), and the fixes made."""
    grounded = ground_cypher(session, cypher, target_type="paper", question=question)
    found = grounded.result.answers if grounded.result else []
    first = min((level for _, level in found), default=0)
    return (sorted(n for n, level in found if level == first),
            [f for f in grounded.fixes
             if f.kind in (NAME_FROM_QUESTION, NAME_RESPELLED, UNMENTIONED)])


def test_a_name_the_question_gives_an_unnamed_end_grounds_its_answers(
        store: Store, tmp_path: Path) -> None:
    session = _session(store, tmp_path)
    answers, (fix,) = _answers(session, UNNAMED, "Find a paper written by Ben O. Suzuki.")
    assert answers == [1, 2]
    assert (fix.where, fix.before, fix.after) == ("(a:author)", None,
                                                  "a.name = 'Ben O. Suzuki'")
    assert "the question names the author 'Ben O. Suzuki'" in fix.note
    assert _answers(session, UNNAMED, None) == ([1, 2, 3, 4], [])  # no question: as written


def test_no_name_where_the_question_does_not_say_which_end_or_which_name(
        store: Store, tmp_path: Path) -> None:
    session = _session(store, tmp_path)
    schema = session.schema
    every = [1, 2, 3, 4]
    # an ordinary word that names an author is no link ("pat" the verb)
    assert _answers(session, UNNAMED, "Which papers did someone pat on the back?") \
        == (every, [])
    # two authors named: which one wrote them is not said
    assert _answers(session, UNNAMED, "Find a paper by Ben O. Suzuki or Ana Lee.") \
        == (every, [])
    # the query writes the name already, in part: no end to name (the part is respelled)
    partial = f'MATCH (a:author {{name: "Suzuki"}})-[:{WRITES}]->(y:paper) RETURN y'
    graph = parse_cypher(partial)
    assert [f.kind for f in names_from_question(session.store, graph, schema,
                                               "Find a paper written by Ben O. Suzuki.")] \
        == [NAME_RESPELLED]
    # a path's middle (a paper cited by the answers, written by Ana Lee) is not an end
    middle = (f'MATCH (y:paper)-[:{CITES}]->(v:paper)<-[:{WRITES}]-'
              f'(a:author {{name: "Ana Lee"}}) RETURN y')
    graph = parse_cypher(middle)
    assert names_from_question(session.store, graph, schema,
                             "Which paper cites Robust hashing at scale by Ana Lee?") == []
    # two unnamed ends of one type: which one the name belongs to is not said
    two = (f"MATCH (a:author)-[:{WRITES}]->(y:paper), (b:author)-[:{WRITES}]->(y) "
           "RETURN y")
    graph = parse_cypher(two)
    assert names_from_question(session.store, graph, schema,
                             "Find a paper written by Ben O. Suzuki.") == []
    # the question describes the end ("a paper citing X"): X is one hop further on, the
    # end is that paper (the query cut the path short)
    short = f"MATCH (y:paper)-[:{CITES}]->(v:paper) RETURN y"
    question = "Which paper cites a paper citing Sparse routing of legal documents?"
    assert names_from_question(session.store, parse_cypher(short), schema, question) == []
    named = "Which paper cites Sparse routing of legal documents?"
    (fix,) = names_from_question(session.store, parse_cypher(short), schema, named)
    assert fix.after == "v.name = 'Sparse routing of legal documents'"


def test_a_name_no_node_has_becomes_the_questions_like_name(store: Store,
                                                             tmp_path: Path) -> None:
    session = _session(store, tmp_path)
    question = "Find a paper written by Ben O. Suzuki."
    for written in ("Ben O. Suzkui", "ben o suzuki", "Suzuki"):
        cypher = UNNAMED.replace("(a:author)", f'(a:author {{name: "{written}"}})')
        answers, (fix,) = _answers(session, cypher, question)
        assert answers == [1, 2], written
        assert (fix.kind, fix.before, fix.after) == (
            NAME_RESPELLED, f"a.name = {written!r}", "a.name = 'Ben O. Suzuki'")
        assert f"no author is named {written!r}; the question writes 'Ben O. Suzuki'" \
            == fix.note
    # a name some author has is the query's choice; one like no name the question writes
    # stays for step 4's similarity search
    for written in ("Ana Lee", "Pat", "Ann Leigh"):
        cypher = UNNAMED.replace("(a:author)", f'(a:author {{name: "{written}"}})')
        assert _answers(session, cypher, question)[1] == [], written
    assert _answers(session, UNNAMED.replace("(a:author)", '(a:author {name: "Suzkui"})'),
                    None)[1] == []


def test_a_constant_the_question_never_names_gives_way_when_nothing_meets_it(
        store: Store, tmp_path: Path) -> None:
    """An LLM's addition ("that cites Sparse routing of legal documents", which the
    question never says) that no answer meets beside the rest is left out when the rest
    grounds answers at the first level; a constant the question names stays, and so does
    one a first-level answer meets."""
    session = _session(store, tmp_path)
    cites = (f'MATCH (a:author {{name: "Ben O. Suzuki"}})-[:{WRITES}]->(y:paper), '
             f'(y)-[:{CITES}]->(p:paper {{name: "Sparse routing of legal documents"}}) '
             "RETURN y")
    answers, (fix,) = _answers(session, cites, "Find a paper written by Ben O. Suzuki.")
    assert answers == [1, 2]  # neither of Ben's papers cites it
    assert (fix.kind, fix.before, fix.after) == (
        UNMENTIONED, "Sparse routing of legal documents", None)
    assert "the question never names 'Sparse routing of legal documents'" in fix.note
    grounded = ground_cypher(session, cites, target_type="paper",
                             question="Find a paper written by Ben O. Suzuki.")
    assert sorted(grounded.graph.symbols) == ["a", "y"]  # the graph grounded, without p
    assert [(t.head, t.tail) for t in grounded.graph.triplets] == [("a", "y")]
    named = "Find a paper by Ben O. Suzuki that cites Sparse routing of legal documents."
    assert UNMENTIONED not in [f.kind for f in _answers(session, cites, named)[1]]
    # Robust hashing at scale cites paper 1, one of Ben's: grounded as written
    cited = (f'MATCH (a:author {{name: "Ben O. Suzuki"}})-[:{WRITES}]->(y:paper), '
             f'(y)<-[:{CITES}]-(p:paper {{name: "Robust hashing at scale"}}) RETURN y')
    assert _answers(session, cited, "Find a paper written by Ben O. Suzuki.") == ([1], [])


def test_a_shortened_or_misspelt_name_is_one_the_question_mentions(
        store: Store, tmp_path: Path) -> None:
    """Only a name none of whose words the question writes in any form is unmentioned:
    "Suzk" (the start of "Suzuki") and "Cashing for routting" (misspelt) are mentioned."""
    schema = _session(store, tmp_path).schema
    query = resolve(parse_cypher(
        f'MATCH (a:author {{name: "Suzk"}})-[:{WRITES}]->(y:paper), '
        f'(y)-[:{CITES}]->(p:paper {{name: "Cashing for routting"}}) RETURN y'), schema)
    assert unmentioned_constants(query, "Which paper by Suzuki cites Caching for routing?") \
        == []
    assert unmentioned_constants(query, "Which paper by Suzuki?") == ["p"]
    assert unmentioned_constants(query, "Which paper cites caching?") == ["a"]
