"""The relations a question names, added beside those its Cypher chose (issue 27: the
mistakes an LLM makes in Cypher). A relation the schema allows but the question does not
name ("part of" for "What substances is bone composed of?") keeps its answers and gains
those of the relation named; nothing is added where the question names the chosen
relation, names none, or where the relationship is not one hop from the target to a
named constant. DuckDB and PostgreSQL."""

from __future__ import annotations

import json
from pathlib import Path

from afr.cli.main import cli
from click.testing import CliRunner
from settings_util import settings_of
from skbutil import write_skb

from afr.cypher.grammar import parse_cypher
from afr.cypher.model import QueryGraph
from afr.embed.hashing import HashingEmbedder
from afr.evaluate.session import run_eval
from afr.lexical import build_lexical_index
from afr.load import load_skb_dir
from afr.methods.af.grounding import ground_cypher
from afr.methods.af.named_relations import EDGE_NAMED, add_named_relations
from afr.pipeline.ask import Pipeline
from afr.store import Store
from afr.store.skb import SkbSchema
from afr.vectors import embed_store

PART = "noun_concept_is_a_part_of_noun_concept"
SUBSTANCE = "noun_concept_is_a_substance_of_noun_concept"
FOUND = "noun_concept_is_found_in_place"
NATIVE = "noun_concept_is_native_to_place"
SCHEMA = {
    "name": "bones", "directed": True, "candidate_types": ["noun_concept"],
    "node_types": {"noun_concept": {}, "place": {}},
    "edge_types": {
        "part_of": {"source": "noun_concept", "target": "noun_concept", "label": PART},
        "substance_of": {"source": "noun_concept", "target": "noun_concept",
                         "label": SUBSTANCE},
        "found_in": {"source": "noun_concept", "target": "place", "label": FOUND},
        "native_to": {"source": "noun_concept", "target": "place", "label": NATIVE},
    },
}
NODES = [{"id": 1, "type": "noun_concept", "name": "bone", "text": "rigid tissue"},
         {"id": 2, "type": "noun_concept", "name": "marrow", "text": "soft tissue inside"},
         {"id": 3, "type": "noun_concept", "name": "collagen",
          "text": "a fibrous protein of connective tissue"},
         {"id": 4, "type": "noun_concept", "name": "ossein", "text": "the protein of bone"},
         {"id": 5, "type": "noun_concept", "name": "socket", "text": "a hollow"},
         {"id": 6, "type": "noun_concept", "name": "java sparrow", "text": "a finch"},
         {"id": 40, "type": "place", "name": "Java", "text": "an island"}]
EDGES = [(2, "part_of", 1), (5, "part_of", 1), (3, "substance_of", 1),
         (4, "substance_of", 1), (6, "native_to", 40)]
QUESTION = "What substances is bone composed of?"
NOISY = f'MATCH (y:noun_concept)-[:{PART}]->(b:noun_concept {{name: "bone"}}) RETURN y'


def _loaded(store: Store, tmp_path: Path) -> Store:
    load_skb_dir(store, write_skb(tmp_path / "skb", SCHEMA, NODES, EDGES), progress=False)
    embed_store(store, HashingEmbedder(32), progress=False)
    build_lexical_index(store, progress=False)
    return store


def _added(schema: SkbSchema, cypher: str, question: str) -> tuple[QueryGraph, list]:
    graph = parse_cypher(cypher)
    return graph, add_named_relations(graph, schema, question)


def test_a_named_relation_is_added_beside_the_chosen_one(duck_store: Store,
                                                         tmp_path: Path) -> None:
    schema = _loaded(duck_store, tmp_path).skb_schema()
    graph, fixes = _added(schema, NOISY, QUESTION)
    (t,) = graph.triplets
    assert (t.edge, t.alternatives, t.head, t.tail) == (PART, (SUBSTANCE,), "y", "b")
    (fix,) = fixes
    assert (fix.kind, fix.before, fix.after) == (EDGE_NAMED, PART, f"{PART}|{SUBSTANCE}")
    assert f"'substances' names {SUBSTANCE}" in fix.note
    # Between a noun and a place, the relation named by "native" (directed the
    # schema's way), not by "substances" (it joins two nouns)
    graph, fixes = _added(schema, f'MATCH (y:noun_concept)-[:{FOUND}]->'
                                  f'(p:place {{name: "Java"}}) RETURN y',
                          "Which birds are native to Java?")
    assert graph.triplets[0].alternatives == (NATIVE,) and len(fixes) == 1


def test_nothing_is_added_where_the_question_does_not_disagree(duck_store: Store,
                                                              tmp_path: Path) -> None:
    schema = _loaded(duck_store, tmp_path).skb_schema()
    gold = NOISY.replace(PART, SUBSTANCE)
    reversed_place = (f'MATCH (p:place {{name: "Java"}})-[:{FOUND}]->(y:noun_concept) '
                      f'RETURN y')
    for cypher, question in [
            (gold, QUESTION),  # the question names the chosen relation
            (NOISY, "What is bone made of?"),  # it names no relation
            (NOISY.replace(f"[:{PART}]", f"[:{PART}*1..2]"), QUESTION),  # a path
            (NOISY.replace('{name: "bone"}', ""), QUESTION),  # no constant at the end
            (f'MATCH (y:noun_concept)-[:{FOUND}]->(p:place {{name: "Java"}}) RETURN y',
             QUESTION),  # "substances" joins two nouns, not a noun and a place
            (reversed_place, "Which birds are native to Java?"),  # against its direction
            (NOISY.replace('"bone"', '"bone substance"'),  # the word is in a name
             "What is found in the bone substance?"),
            (f'MATCH (y:noun_concept)-[:{PART}|{SUBSTANCE}]->(b:noun_concept '
             f'{{name: "bone"}}) RETURN y', QUESTION)]:  # named among the alternatives
        graph, fixes = _added(schema, cypher, question)
        assert fixes == [] and graph.to_dict() == parse_cypher(cypher).to_dict(), cypher


def test_an_ask_grounds_the_named_relations_answers_and_logs_the_fix(
        store: Store, tmp_path: Path) -> None:
    """The replayed noisy Cypher grounds the parts of bone and, with the question, its
    substances too; `af.fix` off grounds as written; the run log keeps the fix."""
    _loaded(store, tmp_path)
    session = Pipeline(store, settings_of(llm__offline=True, rerank__method="none")).session
    alone = ground_cypher(session, NOISY)
    named = ground_cypher(session, NOISY, question=QUESTION)
    assert sorted(n for n, _ in alone.result.answers) == [2, 5]
    assert sorted(n for n, _ in named.result.answers) == [2, 3, 4, 5]
    assert [f.kind for f in named.fixes] == [EDGE_NAMED] and alone.fixes == []
    questions = tmp_path / "q.csv"
    quoted = NOISY.replace('"', '""')
    questions.write_text("id,query,answer_ids,target_type,cypher\n"
                         f'q1,{QUESTION},"[3, 4]",noun_concept,"{quoted}"\n')
    for fix, kinds in ((True, [EDGE_NAMED]), (False, [])):
        config = settings_of(rerank__method="none", llm__offline=True, af__fix=fix)
        session = run_eval(store, str(questions), replay="cypher", settings=config,
                           name=f"fix={fix}")
        assert session.report.done == 1
        (logged,) = [f if isinstance(f, list) else json.loads(f) for name, f in store.query(
            "SELECT v.name, r.fixes FROM runs r JOIN eval_runs v ON v.eval_id = r.eval_id")
            if name == f"fix={fix}"]
        assert [f["kind"] for f in logged] == kinds


def test_afr_cypher_adds_them_given_the_question(duck_store: Store, tmp_path: Path) -> None:
    path = tmp_path / "afr.duckdb"
    _loaded(duck_store, tmp_path).close()
    runner = CliRunner()
    out = runner.invoke(cli, ["--db", str(path), "cypher", NOISY, "--question", QUESTION,
                              "--run"])
    assert out.exit_code == 0, out.output
    assert "fix: edge_named" in out.stderr and "collagen" in out.stdout
    out = runner.invoke(cli, ["--db", str(path), "cypher", NOISY, "--run"])
    assert out.exit_code == 0 and "collagen" not in out.stdout and "marrow" in out.stdout
    out = runner.invoke(cli, ["--db", str(path), "cypher", NOISY, "--question", QUESTION])
    assert f"(y)-[:{PART}|{SUBSTANCE}]->(b)" in out.stdout
