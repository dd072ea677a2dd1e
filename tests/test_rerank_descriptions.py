"""Step 8's focused descriptions (issue 27, item 8: tokens are money): shorter, and first
what the question's Cypher names — its relations in its order, its condition attributes,
its constants' nodes first in a capped list, a second hop only along its path to a
constant — measured for the evidence they keep (bench/rerank_tokens.py), and their tokens
said before an eval spends them."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest
from afr.cli.main import cli
from click.testing import CliRunner
from fake_openai import FakeOpenAI, Reply, prompt_text
from settings_util import settings_of
from skbutil import write_skb

import afr
from afr.load import load_skb_dir
from afr.pipeline.ask import Pipeline
from afr.pipeline.cost import rerank_tokens
from afr.store import DuckDBStore, Store
from afr.vectors.descriptions import describe
from afr.vectors.documents import CAPPED, FOCUSED_CAPS, PAPER_CAPS, build_documents

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "bench"))
import rerank_tokens as bench  # noqa: E402

pytest_plugins = ("toy_fixtures",)  # llm_env

SCHEMA = {
    "name": "birds", "directed": True, "candidate_types": ["bird"],
    "node_types": {"bird": {}, "genus": {}, "family": {}, "place": {}, "food": {}},
    "edge_types": {"in_genus": {"source": "bird", "target": "genus"},
                   "in_family": {"source": "genus", "target": "family"},
                   "seen_in": {"source": "bird", "target": "place"},
                   "eats": {"source": "bird", "target": "food"}}}
GENUS_FIRST = ("MATCH (y:bird)-[:in_genus]->(g:genus)-[:in_family]->(f:family "
               "{name: 'Corvidae'}), (y)-[:seen_in]->(p:place {name: 'town of Zeal'}) "
               "WHERE y.wingspan > 50 RETURN y")
PLACE_FIRST = ("MATCH (y:bird)-[:seen_in]->(p:place {name: 'town of Zeal'}), "
               "(y)-[:in_genus]->(g:genus)-[:in_family]->(f:family {name: 'Corvidae'}) "
               "WHERE y.wingspan > 50 RETURN y")
QUESTION = "Which big bird of the crow family is seen in town of Zeal?"
TEXT = "A large black bird with a raucous call. " * 8


def bird_skb(directory: Path) -> Path:
    nodes = [{"id": "crow", "type": "bird", "name": "crow", "text": TEXT.strip(),
              "attrs": {"colour": "black", "wingspan": 90}},
             {"id": "gull", "type": "bird", "name": "gull", "text": "A sea bird.",
              "attrs": {"colour": "white", "wingspan": 120}},
             {"id": "corvus", "type": "genus", "name": "Corvus"},
             {"id": "larus", "type": "genus", "name": "Larus"},
             {"id": "corvidae", "type": "family", "name": "Corvidae"},
             {"id": "laridae", "type": "family", "name": "Laridae"},
             {"id": "zeal", "type": "place", "name": "town of Zeal"}]
    nodes += [{"id": f"pl{i}", "type": "place", "name": f"place {i:02d}"} for i in range(13)]
    nodes += [{"id": f"fd{i}", "type": "food", "name": f"food {i}"} for i in range(8)]
    edges = [("crow", "in_genus", "corvus"), ("corvus", "in_family", "corvidae"),
             ("gull", "in_genus", "larus"), ("larus", "in_family", "laridae"),
             ("crow", "seen_in", "zeal"), ("gull", "seen_in", "pl0")]
    edges += [("crow", "seen_in", f"pl{i}") for i in range(13)]
    edges += [("crow", "eats", f"fd{i}") for i in range(8)]
    return write_skb(directory, SCHEMA, nodes, edges)


def load_birds(store: Store, tmp_path: Path) -> dict[str, int]:
    load_skb_dir(store, bird_skb(tmp_path / "birds"), progress=False)
    afr.embed_store(store, afr.make_embedder("hash"), progress=False)
    return {str(e): int(i) for i, e in store.query("SELECT id, ext_id FROM nodes")}


def focused(store: Store, cypher: str, ids: list[int]) -> dict[int, str]:
    """The focused descriptions of ``ids`` for the question asked with ``cypher``."""
    pipe = Pipeline(store, settings_of(llm__offline=True, ask__log=False,
                                       rerank__method="none"))
    found = pipe.ask(QUESTION, cypher=cypher).retrieved
    return describe(store, ids, FOCUSED_CAPS, found.focus)


# capped lists: 5 names for a relation the query walks, its constant's node first
# although it sorts last (then the look-alikes in its scope, best first, then by name); 3
# for any other; the rest counted
VIA = ["  via Corvus:", "    in_family → Corvidae"]
EATS = "  eats → food 0, food 1, food 2 (and 5 more)"


def seen_in(line: str) -> bool:
    names = line.removeprefix("  seen_in → ").removesuffix(" (and 9 more)").split(", ")
    return line.startswith("  seen_in → town of Zeal, ") and line.endswith(" (and 9 more)") \
        and len(names) == 5 == len(set(names))


def test_the_description_follows_the_cypher(store: Store, tmp_path: Path) -> None:
    ids = load_birds(store, tmp_path)
    crow = ids["crow"]
    head = ["crow (bird)", "wingspan: 90", "colour: black", TEXT.strip(), "relations:"]
    genus_first = focused(store, GENUS_FIRST, [crow])[crow].split("\n")
    assert genus_first[:5] == head and len(genus_first) == 10
    assert genus_first[5:8] == ["  in_genus → Corvus", *VIA] and seen_in(genus_first[8])
    assert genus_first[9] == EATS
    place_first = focused(store, PLACE_FIRST, [crow])[crow].split("\n")
    assert place_first[:5] == head and seen_in(place_first[5])
    assert place_first[6:] == ["  in_genus → Corvus", *VIA, EATS]
    # without a query (methods that write no Cypher): the generic order, every list 3
    generic = describe(store, [crow], FOCUSED_CAPS)[crow]
    assert generic == (f"crow (bird)\ncolour: black\nwingspan: 90\n{TEXT.strip()}\n"
                       f"relations:\n{EATS}\n  in_genus → Corvus\n  seen_in → place 00, "
                       "place 01, place 02 (and 11 more)")


def test_two_constants_over_one_relation_both_lead_its_list(duck_store: Store,
                                                            tmp_path: Path) -> None:
    """Each constant's best node first, then the next best of each: neither constant's
    look-alikes push the other out of a capped list."""
    ids = load_birds(duck_store, tmp_path)
    crow = ids["crow"]
    cypher = ("MATCH (y:bird)-[:seen_in]->(p:place {name: 'town of Zeal'}), "
              "(y)-[:seen_in]->(q:place {name: 'place 12'}) RETURN y")
    lines = focused(duck_store, cypher, [crow])[crow].split("\n")
    at = lines.index("relations:")
    assert lines[at + 1].startswith("  seen_in → town of Zeal, place 12, ")
    assert lines[at + 1].endswith(" (and 9 more)") and lines[at + 2] == EATS


def test_a_long_description_gives_up_its_text_first(duck_store: Store, tmp_path: Path) -> None:
    from dataclasses import replace

    ids = load_birds(duck_store, tmp_path)
    crow = ids["crow"]
    full = focused(duck_store, GENUS_FIRST, [crow])[crow]
    pipe = Pipeline(duck_store, settings_of(llm__offline=True, ask__log=False,
                                            rerank__method="none"))
    focus = pipe.ask(QUESTION, cypher=GENUS_FIRST).retrieved.focus
    tight = describe(duck_store, [crow], replace(FOCUSED_CAPS, document=len(full) - 30),
                     focus)[crow]
    # 30 characters less: the text loses them, every relation line stays
    assert len(tight) == len(full) - 30 and tight.endswith(EATS)
    assert TEXT.strip()[:len(TEXT.strip()) - 30] in tight


def test_the_rerank_prompt_carries_the_focused_descriptions(duck_store: Store,
                                                            tmp_path: Path) -> None:
    load_birds(duck_store, tmp_path)
    prompts: list[str] = []

    def reply(request: dict) -> Reply:
        prompts.append(prompt_text(request))
        return Reply("2, 1")

    with FakeOpenAI(reply) as server:
        settings = settings_of(llm={"base_url": server.base_url, "model": "m",
                                    "api_key": "k"}, rerank__method="listwise",
                               ask__log=False)
        result = Pipeline(duck_store, settings).ask(QUESTION, cypher=GENUS_FIRST)
        paper = Pipeline(duck_store, settings_of(
            llm={"base_url": server.base_url, "model": "m", "api_key": "k"},
            rerank__method="listwise", rerank__documents="paper", ask__log=False)
        ).ask(QUESTION + " (paper)", cypher=GENUS_FIRST)
    assert result.reranked and paper.reranked and len(prompts) == 2
    assert "relations:\n  in_genus → Corvus\n  via Corvus:\n    in_family → Corvidae\n" \
        "  seen_in → town of Zeal, " in prompts[0]
    # the paper's form lists every place and food; the focused one 5 and 3 of them
    assert "place 12" in prompts[1] and "food 7" in prompts[1]
    assert "food 7" not in prompts[0] and "food 2 (and 5 more)" in prompts[0]
    assert len(prompts[0]) < len(prompts[1])


def test_evidence_kept_on_a_hand_made_skb(duck_store: Store, tmp_path: Path) -> None:
    ids = load_birds(duck_store, tmp_path)
    rows = [{"id": "q1", "query": QUESTION, "cypher": GENUS_FIRST,
             "answer_ids": json.dumps(["crow"])}]
    out = bench.measure(duck_store, rows, "cypher", 20)
    # crow: town of Zeal one hop away, Corvidae two (via Corvus), wingspan tested
    assert out["gold_answers_in_k"] == 1
    assert out["facts"] == {"1-hop": 1, "2-hop": 1, "attribute": 1}
    forms = out["forms"]
    assert forms["focused"]["by_kind"] == {"1-hop": "1/1", "2-hop": "1/1", "attribute": "1/1"}
    assert forms["focused"]["evidence_kept_pct"] == 100.0
    # capped: town of Zeal sorts after the ten places shown; Corvus is crow's one genus, so
    # its second hop is there
    assert forms["capped"]["by_kind"] == {"1-hop": "0/1", "2-hop": "1/1", "attribute": "1/1"}
    # paper: every place; every bird has one genus (an n-1 relation type), so the second
    # hop through it is there too
    assert forms["paper"]["by_kind"] == {"1-hop": "1/1", "2-hop": "1/1", "attribute": "1/1"}
    # the measure reads what a description states, not what the graph holds
    facts, _ = bench.constant_facts(duck_store, ids["crow"], bench.resolve(
        bench.parse_cypher(GENUS_FIRST), duck_store.skb_schema()))
    labels = {t: t for t in SCHEMA["edge_types"]}
    docs = build_documents(duck_store, [ids["crow"]], "doc_rel", caps=CAPPED)
    assert [bench.stated(f, docs[ids["crow"]], labels) for f in facts] == [True, False]
    paper = build_documents(duck_store, [ids["crow"]], "doc_rel", caps=PAPER_CAPS)
    assert [bench.stated(f, paper[ids["crow"]], labels) for f in facts] == [True, True]
    assert not bench.stated(facts[1], paper[ids["crow"]].replace("town of Zeal", "Zeel"),
                            labels)


def test_the_expected_rerank_tokens_are_printed_before_an_eval(tmp_path: Path,
                                                              llm_env) -> None:
    path = tmp_path / "birds.duckdb"
    store = DuckDBStore(path)
    load_birds(store, tmp_path)
    qfile = tmp_path / "q.csv"
    qfile.write_text(f'id,query,answer_ids,cypher\nq1,{QUESTION},"[""crow""]",'
                     f'"{GENUS_FIRST}"\nq2,{QUESTION},"[""crow""]","{PLACE_FIRST}"\n')
    with FakeOpenAI(lambda request: Reply("1")) as server:
        expected = rerank_tokens(store, settings_of(
            llm={"base_url": server.base_url, "model": "m", "api_key": "k"},
            rerank__method="listwise"), question_chars=len(QUESTION))
        store.close()
        llm_env(server.base_url)
        result = CliRunner().invoke(cli, ["--db", str(path), "--no-progress", "eval",
                                          str(qfile), "--replay", "cypher", "--reranker",
                                          "listwise"])
    assert result.exit_code == 0, result.output
    # two birds: a listwise prompt of 2 descriptions (the sample is every bird)
    assert expected.sampled == 2 and expected.low == expected.high > 0
    line = (f"afr: note: rerank prompts per question: about {expected.high:,} tokens "
            f"(listwise: 1 prompt of 20 'focused' descriptions, "
            f"~{expected.description_chars:,} "
            "characters each in 2 sampled nodes; tokens estimated as characters / 4) — up "
            f"to about {2 * expected.high:,} for 2 questions")
    lines = result.stderr.splitlines()
    at = lines.index(line)
    assert lines[at - 1].startswith("afr: note: LLM calls per question: step 8 (listwise)")
    assert at < next(i for i, ln in enumerate(lines) if ln.startswith("eval "))


@pytest.mark.parametrize("reranker,calls", [("listwise", 1), ("pointwise", 20),
                                            ("pairwise", 69)])
def test_expected_tokens_are_the_prompts_rendered(duck_store: Store, tmp_path: Path,
                                                  reranker: str, calls: int) -> None:
    from afr.llm.prompts import render_messages

    load_birds(duck_store, tmp_path)
    got = rerank_tokens(duck_store, settings_of(rerank__method=reranker), question_chars=40)
    docs = list(describe(duck_store, [i for (i,) in duck_store.query(
        "SELECT id FROM nodes WHERE type = 'bird' ORDER BY id")], FOCUSED_CAPS).values())
    shown = {"listwise": 20, "pointwise": 1, "pairwise": 2}[reranker]
    cands = [{"id": i, "type": "", "text": docs[(i - 1) % 2]} for i in range(1, shown + 1)]
    variables = {"candidates": cands} if reranker == "listwise" else \
        {"candidate": cands[0]} if reranker == "pointwise" else {"a": cands[0], "b": cands[1]}
    chars = sum(len(m["content"]) for m in render_messages(
        f"rerank_{reranker}", None, question="x" * 40, **variables))
    assert got.high == round(calls * chars / 4)
    assert got.description_chars == round(sum(map(len, docs)) / 2)
