"""Issue 27: what the offline formalizer trusts (the answer type a question names, links
to names rather than ordinary words, the relation it guessed), the weight of vector
similarity beside BM25 (the embedder's own, calibrated, or set), and text conditions
inside the scope expansion. DuckDB and PostgreSQL."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest
from afr.cli.main import cli
from click.testing import CliRunner
from settings_util import settings_of
from skbutil import write_skb

from afr.embed.hashing import HashingEmbedder
from afr.lexical import build_lexical_index
from afr.load import load_skb_dir
from afr.methods.af.asked_class import asked_class, asked_phrases
from afr.methods.af.grounding import ground_cypher
from afr.methods.af.offline import CLASS_TRUST, RELATION_TRUST, formalize
from afr.methods.af.relation_link import (
    AMBIGUOUS_STEM_LINK_CONFIDENCE,
    STEM_LINK_CONFIDENCE,
)
from afr.pipeline.ask import Pipeline, open_session
from afr.retrieval.filters import AttributeCatalog
from afr.retrieval.fusion import fuse
from afr.retrieval.linking import guess_target_type, named_entities, type_words
from afr.retrieval.lists import fuse_hybrid
from afr.retrieval.weights import dense_weight, hybrid_dense_weight, record_calibration
from afr.settings import RankingSettings
from afr.store import Store
from afr.vectors import embed_store

SCHEMA = {
    "name": "lexicon", "directed": True,
    "candidate_types": ["noun_concept", "verb_concept", "word"],
    "node_types": {"noun_concept": {}, "verb_concept": {}, "word": {}, "place": {}},
    "edge_types": {
        "kind_of": {"source": "noun_concept", "target": "noun_concept",
                    "label": "noun_concept_is_a_kind_of_noun_concept"},
        "found_in": {"source": "noun_concept", "target": "place",
                     "label": "noun_concept_is_found_in_place"},
        "means": {"source": "word", "target": "noun_concept", "label": "word_can_mean"},
    },
}
NOUNS = {1: ("snake", "a limbless scaled reptile"),
         2: ("viper", "a venomous snake with hinged fangs"),
         3: ("adder", "a small venomous viper of Europe"),
         4: ("puff adder", "a large African viper that inflates its body when alarmed"),
         5: ("Gaboon viper", "a very large heavy-bodied African viper"),
         6: ("call", "a loud utterance; the characteristic cry of a bird")}


def _schema(name: str, candidates: list[str], labels: dict[str, str],
            others: list[str]) -> dict:
    """A directed SKB schema whose edge types join the types their labels begin and end
    with ("word_can_mean_noun_concept": word → noun_concept)."""
    types = [*candidates, *others]

    def ends(label: str) -> tuple[str, str]:
        return (next(t for t in types if label.startswith(t + "_")),
                next(t for t in types if label.endswith("_" + t)))

    return {"name": name, "directed": True, "candidate_types": candidates,
            "node_types": {t: {} for t in types},
            "edge_types": {e: {"source": ends(label)[0], "target": ends(label)[1],
                               "label": label} for e, label in labels.items()}}


def make(store: Store, tmp_path: Path) -> None:
    nodes = [{"id": i, "type": "noun_concept", "name": n, "text": t}
             for i, (n, t) in NOUNS.items()]
    nodes += [{"id": 20, "type": "verb_concept", "name": "call", "text": "utter a cry"},
              {"id": 30, "type": "word", "name": "call", "text": "a loud utterance"},
              {"id": 40, "type": "place", "name": "Africa", "text": "a continent"},
              {"id": 41, "type": "place", "name": "Europe", "text": "a continent"}]
    edges = [(2, "kind_of", 1), (3, "kind_of", 2), (4, "kind_of", 2), (5, "kind_of", 2),
             (4, "found_in", 40), (5, "found_in", 40), (3, "found_in", 41),
             (30, "means", 6)]
    load_skb_dir(store, write_skb(tmp_path / "skb", SCHEMA, nodes, edges), progress=False)
    embed_store(store, HashingEmbedder(32), progress=False)
    build_lexical_index(store, progress=False)


def test_the_answer_type_a_question_names(store: Store, tmp_path: Path) -> None:
    make(store, tmp_path)
    schema = store.skb_schema()
    assert guess_target_type("Which verb means to shout?", schema) == "verb_concept"
    assert guess_target_type("Which words can mean a cry?", schema) == "word"
    # a word of a type's name counts among the question's first words only
    assert guess_target_type("Which vipers live where the word is Africa?", schema) == "word"
    assert guess_target_type("Name the snake that is small and lives far from the "
                             "verb", schema) is None
    # "concept" is in three types' names: it names none of them
    assert guess_target_type("Which concept is a snake?", schema) is None


def test_links_are_names_not_ordinary_words(store: Store, tmp_path: Path) -> None:
    make(store, tmp_path)
    schema = store.skb_schema()
    mentions = [e.mention for e in named_entities(
        store, "What do you call a viper of Africa?", schema)]
    # "call" and "viper" name nodes, but are written as ordinary words; Africa is a name
    assert mentions == ["africa"]
    two_words = named_entities(store, "Is the puff adder big?", schema)
    assert [e.mention for e in two_words] == ["puff adder"]


def test_a_long_name_is_linked_whole(store: Store, tmp_path: Path) -> None:
    """A paper's title of nine words is one entity (n-grams stopped at six words, so the
    synthetic MAG set's titles were never linked)."""
    title = "Practical Incremental Indexing of Source Code with Sparse Transformers"
    schema = _schema("papers", ["paper"], {"cites": "paper_cites_paper"}, [])
    nodes = [{"id": 1, "type": "paper", "name": title, "text": "indexing code"},
             {"id": 2, "type": "paper", "name": "Source Code", "text": "code"}]
    load_skb_dir(store, write_skb(tmp_path / "skb", schema, nodes, [(2, "cites", 1)]),
                 progress=False)
    (paper,) = named_entities(store, f"Which paper cites {title}?", store.skb_schema())
    assert (paper.node_id, paper.name) == (1, title)


def test_the_word_after_the_answer_type_is_the_questions_own(store: Store,
                                                            tmp_path: Path) -> None:
    """"Which verbs call …": "verbs" names the answers, so it does not type "call" as the
    verb call (a link it would otherwise make); "the verb call" does."""
    make(store, tmp_path)
    schema = store.skb_schema()
    assert named_entities(store, "Which verbs call for help?", schema) == []
    assert named_entities(store, "How many verbs call for help?", schema) == []
    (typed,) = named_entities(store, "What does the verb call mean?", schema)
    assert (typed.node_id, typed.ordinary) == (20, False)


def test_a_relation_is_named_by_its_own_words_not_its_end_types(store: Store,
                                                               tmp_path: Path) -> None:
    """Every edge between animals has "animal" in its label: a question asking for animals
    names none of them by that word, so the relation it chose among two is a guess."""
    schema = {"name": "zoo", "directed": True, "candidate_types": ["animal"],
              "node_types": {"animal": {}},
              "edge_types": {"hunts": {"source": "animal", "target": "animal",
                                       "label": "animal_hunts_animal"},
                             "feared_by": {"source": "animal", "target": "animal",
                                           "label": "animal_is_feared_by_animal"}}}
    nodes = [{"id": i, "type": "animal", "name": n, "text": t}
             for i, (n, t) in NOUNS.items()]
    load_skb_dir(store, write_skb(tmp_path / "skb", schema, nodes, [(2, "hunts", 1)]),
                 progress=False)
    catalog = AttributeCatalog.from_store(store)
    guessed = formalize(store, "Which animals are like the Gaboon Viper?",
                        store.skb_schema(), catalog)
    (viper,) = guessed.entities
    assert guessed.confidence == pytest.approx(viper.confidence * RELATION_TRUST["guessed"])
    named = formalize(store, "Which animals are feared by the Gaboon Viper?",
                      store.skb_schema(), catalog)
    assert "animal_is_feared_by_animal" in named.cypher
    assert named.confidence == pytest.approx(viper.confidence * RELATION_TRUST["named"])


def test_the_class_a_question_asks_for(store: Store, tmp_path: Path) -> None:
    """"Which vipers …" asks for kinds of the node `viper`: the relation most nodes point
    at it by, down the hierarchy, with the target type it implies. A relational noun
    ("member of"), a type's own name, and a node too few nodes point at name no class."""
    make(store, tmp_path)
    schema, catalog = store.skb_schema(), AttributeCatalog.from_store(store)
    words = type_words(schema)
    found = asked_class(store, "Which vipers live in Africa?", schema, None, words)
    assert found is not None
    assert (found.name, found.edge_type, found.member_type, found.members) == \
        ("viper", "kind_of", "noun_concept", 3)
    same = asked_class(store, "What kinds of Viper are there?", schema, None, words)
    assert same is not None and same.name == "viper"
    assert asked_phrases("Which member of the vipers is small?", words) == []
    # "which of": the noun it picks from, past determiners, possessives and numbers
    assert asked_phrases("Which of Africa's two vipers is small?", words)[0] == \
        ("vipers", "vipers")
    assert asked_phrases("Which of these is small?", words) == []
    assert asked_phrases("Which verbs call for help?", words) == []
    assert asked_class(store, "Which snake is a viper?", schema, None, words) is None
    # capitalised words before a common noun modify it: the noun is the class; a name
    # followed by a verb is tried after the verb
    african = asked_class(store, "Which African viper inflates itself?", schema, None, words)
    assert african is not None and african.name == "viper"
    assert [p for p, _ in asked_phrases("Which South American national capital is …",
                                        words)][:3] == \
        ["national capital", "national", "South American national"]
    assert [p for p, _ in asked_phrases("Which Viper bites?", words)] == \
        ["bites"] * 3 + ["Viper bites"] * 3 + ["Viper"]
    # a later word alone (the question's verb) comes after the modifier
    term = list(dict.fromkeys(p for p, _ in asked_phrases("Which Australian term denotes …",
                                                          words)))
    assert term[:2] == ["term denotes", "term"] and \
        term.index("Australian") < term.index("denotes")
    bites = asked_class(store, "Which Viper bites?", schema, None, words)
    assert bites is not None and bites.name == "viper"
    # the class the answer type allows: words do not point at vipers
    assert asked_class(store, "Which vipers …", schema, "word", words) is None
    assert "viper" not in formalize(store, "Which vipers live in Africa?", schema,
                                    catalog).cypher  # off unless asked for
    formal = formalize(store, "Which vipers live in Africa?", schema, catalog,
                       read_class=True)
    assert formal.target_type == "noun_concept"
    assert ('(y:`noun_concept`)-[:`noun_concept_is_a_kind_of_noun_concept`*1..3]->'
            '(k:`noun_concept` {name: "viper"})') in formal.cypher
    (africa,) = formal.entities  # the only relation to places: named
    assert "noun_concept_is_found_in_place" in formal.cypher
    assert formal.confidence == pytest.approx((CLASS_TRUST + africa.confidence) / 2)
    settings = settings_of(llm__offline=True, rerank__method="none", af__offline_class=True)
    pipeline = Pipeline(store, settings)
    asked = pipeline.ask("Which vipers live in Africa?")
    assert asked.cypher == formal.cypher
    grounded = ground_cypher(pipeline.session, formal.cypher)
    first = min(level for _, level in grounded.result.answers)
    assert sorted(n for n, level in grounded.result.answers if level == first) == [4, 5]


def test_a_class_is_reached_by_kinds_and_instances(store: Store, tmp_path: Path) -> None:
    """Capitals are kinds of capital or instances of one: Brasília is an instance of a
    national capital, which is a kind of capital. Instances take no kind-of parent, so
    both are parent relations of the hierarchy, and every step down it may take either
    (``[:instance_of|kind_of*1..3]``); parts have kind-of parents too, so part-of is
    not one. A node of an answer type that only nodes of another type point at (the
    words that can mean Lima) is no class."""
    schema_spec = _schema("capitals", ["noun_concept", "word"],
                          {"kind_of": "noun_concept_is_a_kind_of_noun_concept",
                           "instance_of": "noun_concept_is_an_instance_of_noun_concept",
                           "part_of": "noun_concept_is_a_part_of_noun_concept",
                           "means": "word_can_mean_noun_concept"}, [])
    names = ["capital", "national capital", "state capital", "Brasilia", "Lima", "Paris",
             "Manaus", "palace", "square", "building", "lake", "body of water", "sea"]
    nodes = [{"id": i, "type": "noun_concept", "name": n, "text": f"{n} of a country"}
             for i, n in enumerate(names)]
    nodes += [{"id": 20 + i, "type": "word", "name": n, "text": "a city"}
              for i, n in enumerate(["Lima", "City of Kings"])]
    edges = [(1, "kind_of", 0), (2, "kind_of", 0), (3, "instance_of", 1),
             (4, "instance_of", 0), (5, "instance_of", 0), (6, "instance_of", 2),
             (7, "kind_of", 9), (8, "kind_of", 9), (7, "part_of", 3), (8, "part_of", 3),
             (10, "kind_of", 11), (12, "kind_of", 11), (20, "means", 4), (21, "means", 4)]
    load_skb_dir(store, write_skb(tmp_path / "skb", schema_spec, nodes, edges),
                 progress=False)
    embed_store(store, HashingEmbedder(32), progress=False)
    build_lexical_index(store, progress=False)
    schema, words = store.skb_schema(), type_words(store.skb_schema())
    found = asked_class(store, "Which capitals lie on a river?", schema, None, words)
    assert found is not None
    assert (found.edge_type, found.alternatives) == ("instance_of", ("kind_of",))
    assert asked_class(store, "Which Lima is old?", schema, None, words) is None
    formal = formalize(store, "Which capitals lie on a river?", schema,
                       AttributeCatalog.from_store(store), read_class=True)
    assert ("-[:`noun_concept_is_an_instance_of_noun_concept`|"
            "`noun_concept_is_a_kind_of_noun_concept`*1..3]->") in formal.cypher
    pipeline = Pipeline(store, settings_of(llm__offline=True, rerank__method="none"))
    grounded = ground_cypher(pipeline.session, formal.cypher)
    assert grounded.result is not None
    # the answers linked to the exact name (wider levels hold similarly named nodes)
    assert sorted(names[n] for n, level in grounded.result.answers if level == 1) == [
        "Brasilia", "Lima", "Manaus", "Paris", "national capital", "state capital"]


def test_beside_the_class_a_guessed_relation_removes_nothing(store: Store,
                                                            tmp_path: Path) -> None:
    """Two relations join kinds of snake to places: the one to Africa is a guess, and a
    guess beside the class would only remove its members. It is left to the words."""
    schema = {**SCHEMA, "edge_types": {
        **SCHEMA["edge_types"],
        "named_after": {"source": "noun_concept", "target": "place",
                        "label": "noun_concept_is_named_after_place"}}}
    nodes = [{"id": i, "type": "noun_concept", "name": n, "text": t}
             for i, (n, t) in NOUNS.items()] + [
        {"id": 40, "type": "place", "name": "Africa", "text": "a continent"}]
    edges = [(2, "kind_of", 1), (3, "kind_of", 2), (4, "kind_of", 2), (5, "kind_of", 2),
             (4, "found_in", 40)]
    load_skb_dir(store, write_skb(tmp_path / "skb", schema, nodes, edges), progress=False)
    formal = formalize(store, "Which vipers live in Africa?", store.skb_schema(),
                       AttributeCatalog.from_store(store), read_class=True)
    assert '{name: "viper"}' in formal.cypher and "Africa" not in formal.cypher
    assert any("'Africa': its relation to the answers is guessed" in n for n in formal.notes)
    assert formal.confidence == pytest.approx(CLASS_TRUST)


def test_a_relation_the_question_names_links_the_word_after_it(store: Store,
                                                               tmp_path: Path) -> None:
    """"the opposite of ascending": the relation's own word vouches for "ascending" as the
    verb ascend (same stem), a name no exact link finds. A word that names nodes at the
    ends of several relations named by one word ("can mean" a noun or a verb) is a weak
    link; a question that names no relation links nothing this way."""
    schema = _schema("verbs", ["verb_concept", "word"], {
        "antonym": "verb_concept_is_the_opposite_of_verb_concept",
        "word_verb": "word_can_mean_verb_concept",
        "word_noun": "word_can_mean_noun_concept"}, ["noun_concept"])
    nodes = [{"id": 1, "type": "verb_concept", "name": "ascend", "text": "travel upward"},
             {"id": 2, "type": "verb_concept", "name": "descend", "text": "travel down"},
             {"id": 3, "type": "verb_concept", "name": "rise", "text": "move upward"},
             {"id": 10, "type": "noun_concept", "name": "hinge", "text": "a joint"},
             {"id": 11, "type": "verb_concept", "name": "hinge", "text": "fit a joint"},
             {"id": 20, "type": "word", "name": "flap", "text": "flap"}]
    edges = [(1, "antonym", 2), (20, "word_noun", 10)]
    load_skb_dir(store, write_skb(tmp_path / "skb", schema, nodes, edges), progress=False)
    embed_store(store, HashingEmbedder(32), progress=False)
    build_lexical_index(store, progress=False)
    schema_, catalog = store.skb_schema(), AttributeCatalog.from_store(store)
    formal = formalize(store, "Which verb is the opposite of ascending?", schema_, catalog)
    assert ('(y:`verb_concept`)-[:`verb_concept_is_the_opposite_of_verb_concept`]-'
            '(c1:`verb_concept` {name: "ascend"})') in formal.cypher
    (ascend,) = formal.entities
    assert (ascend.node_id, ascend.mention) == (1, "ascending")
    assert formal.confidence == pytest.approx(STEM_LINK_CONFIDENCE)
    pipeline = Pipeline(store, settings_of(llm__offline=True, rerank__method="none"))
    grounded = ground_cypher(pipeline.session, formal.cypher)
    first = min(level for _, level in grounded.result.answers)
    assert [n for n, level in grounded.result.answers if level == first] == [2]
    either = formalize(store, "Which word can mean a hinged door?", schema_, catalog)
    (hinge,) = either.entities
    assert hinge.name == "hinge"
    assert either.confidence == pytest.approx(AMBIGUOUS_STEM_LINK_CONFIDENCE)
    assert formalize(store, "Which verb is like ascending?", schema_, catalog).entities == []


def _load_words(store: Store, tmp_path: Path, words: dict[str, dict]) -> None:
    """An SKB of words alone, with their attributes, ids from 1 in the given order."""
    schema = {"name": "words", "directed": True, "candidate_types": ["word"],
              "node_types": {"word": {}}, "edge_types": {}}
    nodes = [{"id": i, "type": "word", "name": n, "text": n, "attrs": attrs}
             for i, (n, attrs) in enumerate(words.items(), 1)]
    load_skb_dir(store, write_skb(tmp_path / "skb", schema, nodes, []), progress=False)


def test_a_comparison_names_its_attribute_and_its_number_is_no_name(
        store: Store, tmp_path: Path) -> None:
    """"more than 40 senses as a verb": the attribute whose name the question's words name
    most (verb_senses, not senses), trusted as named; "40", a word of the SKB, is the
    comparison's quantity, not an entity."""
    _load_words(store, tmp_path, {"run": {"senses": 57, "verb_senses": 41},
                                  "set": {"senses": 45, "verb_senses": 24},
                                  "40": {"senses": 1, "verb_senses": 0}})
    formal = formalize(store, "Which words have more than 40 senses as a verb?",
                       store.skb_schema(), AttributeCatalog.from_store(store))
    assert formal.cypher == "MATCH (y:`word`)\nWHERE y.verb_senses > 40\nRETURN y"
    assert formal.entities == [] and formal.confidence == pytest.approx(1.0)
    plain = formalize(store, "Which words have more than 40 senses?", store.skb_schema(),
                      AttributeCatalog.from_store(store))
    assert "y.senses > 40" in plain.cypher


def test_an_amount_names_its_attribute_by_the_questions_other_words(
        store: Store, tmp_path: Path) -> None:
    """"tagged more than 50 times in the corpus": no attribute is named "times", so the one
    number attribute whose name another word of the question names (corpus_frequency) is
    the guess; with none, the amount is still no entity (the word "50" is not linked)."""
    _load_words(store, tmp_path, {"run": {"senses": 57, "corpus_frequency": 300},
                                  "set": {"senses": 45, "corpus_frequency": 20},
                                  "50": {"senses": 1, "corpus_frequency": 0}})
    schema_, catalog = store.skb_schema(), AttributeCatalog.from_store(store)
    formal = formalize(store, "Which words are tagged more than 50 times in the corpus?",
                       schema_, catalog)
    assert formal.cypher == "MATCH (y:`word`)\nWHERE y.corpus_frequency > 50\nRETURN y"
    assert formal.entities == []
    assert formal.confidence == pytest.approx(RELATION_TRUST["guessed"])
    unknown = formalize(store, "Which words were looked up more than 50 times?", schema_,
                        catalog)
    assert unknown.cypher == "MATCH (y:`word`)\nRETURN y" and unknown.entities == []
    assert "no node name in the question is linked with confidence" in unknown.notes[-1]
    year = formalize(store, "Which words were coined in 50?", schema_, catalog)
    assert [e.name for e in year.entities] == ["50"]  # "in 50" may name a node


def test_a_path_the_question_writes_out_beats_an_unnamed_direct_edge(
        store: Store, tmp_path: Path) -> None:
    """"bought together with a product sold by Acme": the relation's word, then the middle
    type's word, then the words of the second relation, then the entity — two hops, not a
    direct edge between products and brands. Without words for the second hop (two edge
    types join products to brands) the question writes no path."""
    schema = _schema("shop", ["product"], {
        "bought": "product_also_bought_with_product",
        "has_brand": "product_has_brand_brand",
        "sold_by": "product_is_sold_by_brand"}, ["brand"])
    nodes = [{"id": i, "type": "product", "name": n, "text": n}
             for i, n in enumerate(["Kettle K1", "Mug M2", "Lamp L3"], 1)]
    nodes.append({"id": 10, "type": "brand", "name": "Acme", "text": "a brand"})
    edges = [(1, "sold_by", 10), (2, "bought", 1), (3, "bought", 2)]
    load_skb_dir(store, write_skb(tmp_path / "skb", schema, nodes, edges), progress=False)
    schema_, catalog = store.skb_schema(), AttributeCatalog.from_store(store)
    path = formalize(store, "Which product bought together with a product sold by Acme?",
                     schema_, catalog)
    assert path.cypher == ("MATCH (y:`product`)-[:`product_also_bought_with_product`]-"
                           "(m1:`product`),\n      (m1:`product`)-[:`product_is_sold_by_brand`]"
                           "->(c1:`brand` {name: \"Acme\"})\nRETURN y")
    (acme,) = path.entities
    assert path.confidence == pytest.approx(acme.confidence * RELATION_TRUST["named"])
    unnamed = formalize(store, "Which product bought together with a product by Acme?",
                        schema_, catalog)
    assert "m1" not in unnamed.cypher
    # "the product": a type word of a node the question names, as in "the json module"
    definite = formalize(store, "Which product bought together with the product sold by "
                         "Acme?", schema_, catalog)
    assert "m1" not in definite.cypher
    direct = formalize(store, "Which product sold by Acme is cheap?", schema_, catalog)
    assert "(y:`product`)-[:`product_is_sold_by_brand`]->(c1:`brand`" in direct.cypher


def test_a_written_path_may_pass_a_node_of_the_entitys_type_or_a_wordless_label(
        store: Store, tmp_path: Path) -> None:
    """"viewed together with a product bought together with X": the middle node is of X's
    own type, the words after it name the second hop; "in the category a category that
    contains X": the label product_in_category names no word of its own, the middle
    type's word after the target's names it. Without a relation written after it, X's own
    type word ("a product X", "the brand X") stays X's."""
    schema = _schema("shop", ["product"], {
        "bought": "product_also_bought_with_product",
        "viewed": "product_also_viewed_with_product",
        "in_category": "product_in_category_category"}, ["category"])
    names = ["Kettle K1", "Mug M2", "Lamp L3", "Tray T4"]
    nodes = [{"id": i, "type": "product", "name": n, "text": n} for i, n in enumerate(names, 1)]
    nodes.append({"id": 10, "type": "category", "name": "Kitchen", "text": "a category"})
    edges = [(2, "bought", 1), (3, "viewed", 2), (1, "in_category", 10),
             (4, "in_category", 10)]
    load_skb_dir(store, write_skb(tmp_path / "skb", schema, nodes, edges), progress=False)
    embed_store(store, HashingEmbedder(32), progress=False)
    schema_, catalog = store.skb_schema(), AttributeCatalog.from_store(store)
    session = open_session(store, settings_of(llm__offline=True))
    for question, first, second, answers in [
            ("Which product viewed together with a product bought together with Kettle K1?",
             "product_also_viewed_with_product", "product_also_bought_with_product", [3]),
            ("Find a product in the category a category that contains Kettle K1.",
             "product_in_category_category", "product_in_category_category", [1, 4])]:
        path = formalize(store, question, schema_, catalog)
        lines = path.cypher.splitlines()
        assert f"[:`{first}`]" in lines[0] and "(m1:" in lines[0], path.cypher
        assert f"[:`{second}`]" in lines[1] and "(c1:" in lines[1], path.cypher
        grounded = ground_cypher(session, path.cypher, target_type="product")
        assert sorted(n for n, lvl in grounded.result.answers if lvl == 1) == answers
    for question in ("Which product viewed together with Kettle K1?",
                     "I am looking for a product viewed together with Kettle K1."):
        direct = formalize(store, question, schema_, catalog)
        assert "m1" not in direct.cypher and "viewed_with_product`]-(c1" in direct.cypher, \
            direct.cypher


def test_names_joined_by_and_each_constrain_the_answer(store: Store,
                                                      tmp_path: Path) -> None:
    """Two linked names next to each other in the graph: the later one qualifies the
    earlier ("libgcrypt20 in the Crypto Libraries section"), unless the question joins
    them by "and" — "depends on both libssl3 and zlib1g" asks for packages that depend on
    each — or writes a relation between them ("depends on libssl3 and recommends
    zlib1g", each name then joined by the relation written just before it)."""
    schema = _schema("packages", ["package"], {
        "depends": "package_depends_on_package",
        "recommends": "package_recommends_package",
        "in_section": "package_is_in_section_section"}, ["section"])
    names = ["libssl3", "zlib1g", "curl", "gzip", "libgcrypt20", "wget"]
    nodes = [{"id": i, "type": "package", "name": n, "text": n} for i, n in enumerate(names, 1)]
    nodes.append({"id": 10, "type": "section", "name": "Crypto Libraries", "text": "a section"})
    edges = [(1, "depends", 2), (3, "depends", 1), (3, "depends", 2), (4, "depends", 2),
             (5, "in_section", 10), (5, "depends", 1), (6, "depends", 1),
             (6, "recommends", 2)]
    load_skb_dir(store, write_skb(tmp_path / "skb", schema, nodes, edges), progress=False)
    embed_store(store, HashingEmbedder(32), progress=False)
    schema_, catalog = store.skb_schema(), AttributeCatalog.from_store(store)
    for joined in ("both libssl3 and zlib1g", "libssl3 as well as zlib1g",
                   "both the libssl3 package and the zlib1g package"):
        both = formalize(store, f"Which package depends on {joined}?", schema_, catalog)
        patterns = [line.strip(" ,") for line in both.cypher.splitlines()[:2]]
        assert [p.split("(c")[0] for p in patterns] == [
            "MATCH (y:`package`)-[:`package_depends_on_package`]-",
            "(y:`package`)-[:`package_depends_on_package`]-"], both.cypher
        assert [p.split("name: ")[1] for p in patterns] == ['"libssl3"})', '"zlib1g"})']
        assert not any("qualifies" in n for n in both.notes), both.notes
        session = open_session(store, settings_of(llm__offline=True))
        grounded = ground_cypher(session, both.cypher, target_type="package")
        assert [n for n, lvl in grounded.result.answers if lvl == 1] == [3]
    # each name by the relation written just before it
    two = formalize(store, "Which package depends on libssl3 and recommends zlib1g?",
                    schema_, catalog)
    assert "`package_depends_on_package`]-(c1" in two.cypher, two.cypher
    assert "`package_recommends_package`]-(c2" in two.cypher, two.cypher
    grounded = ground_cypher(session, two.cypher, target_type="package")
    assert [n for n, lvl in grounded.result.answers if lvl == 1] == [6]
    # no word names one relation over the other: either may join them
    either = formalize(store, "Which package goes with zlib1g?", schema_, catalog)
    assert ("(y:`package`)-[:`package_depends_on_package`|`package_recommends_package`]-"
            "(c1:`package` {name: \"zlib1g\"})") in either.cypher, either.cypher
    assert any("names none of" in n for n in either.notes), either.notes
    grounded = ground_cypher(session, either.cypher, target_type="package")
    assert sorted(n for n, lvl in grounded.result.answers if lvl == 1) == [1, 3, 4, 6]
    qualified = formalize(store, "Which package depends on libgcrypt20 in the Crypto "
                          "Libraries section?", schema_, catalog)
    assert any("'Crypto Libraries' qualifies 'libgcrypt20'" in n for n in qualified.notes), \
        qualified.notes


def test_the_offline_cypher_is_trusted_as_far_as_its_relation(store: Store,
                                                              tmp_path: Path) -> None:
    make(store, tmp_path)
    schema, catalog = store.skb_schema(), AttributeCatalog.from_store(store)
    found = formalize(store, "Which nouns are found in Africa?", schema, catalog)
    assert "noun_concept_is_found_in_place" in found.cypher
    (africa,) = found.entities
    assert found.confidence == pytest.approx(africa.confidence * RELATION_TRUST["named"])
    untyped = formalize(store, "What lives in Africa?", schema, catalog)
    assert untyped.target_type is None and "(y)--" in untyped.cypher
    assert untyped.confidence == pytest.approx(
        untyped.entities[0].confidence * RELATION_TRUST["any"])


def test_an_ordinary_phrase_by_any_relation_earns_the_graph_no_say(
        store: Store, tmp_path: Path) -> None:
    """A phrase the question writes as ordinary words, joined to an untyped answer by any
    relation, is BM25's evidence already: the Cypher keeps it, the ranking does not trust
    it, so af's list is the hybrid list. Written as a name, the same node counts."""
    make(store, tmp_path)
    schema, catalog = store.skb_schema(), AttributeCatalog.from_store(store)
    ordinary = formalize(store, "What is similar to the puff adder?", schema, catalog)
    assert ordinary.target_type is None and "{name: \"puff adder\"}" in ordinary.cypher
    assert ordinary.entities[0].ordinary and ordinary.confidence == 0.0
    assert any("ordinary phrase" in n for n in ordinary.notes)
    named = formalize(store, "What is similar to the Puff Adder?", schema, catalog)
    assert not named.entities[0].ordinary
    assert named.confidence == pytest.approx(
        named.entities[0].confidence * RELATION_TRUST["any"])
    pipeline = Pipeline(store, settings_of(llm__offline=True, rerank__method="none"))
    af = pipeline.ask("What is similar to the puff adder?")
    hybrid = Pipeline(store, settings_of(llm__offline=True, rerank__method="none",
                                         ask__method="hybrid")).ask(
        "What is similar to the puff adder?")
    assert af.answers and [a.node_id for a in af.answers] == [a.node_id for a in hybrid.answers]


def test_the_dense_weight_and_where_it_comes_from(store: Store, tmp_path: Path) -> None:
    make(store, tmp_path)
    hashing = HashingEmbedder(32)
    own = dense_weight(store, hashing, RankingSettings())
    assert own.weight < 0.01 and "embedder's own" in own.source  # a tie-breaker
    assert hybrid_dense_weight(store, hashing, RankingSettings()).weight == 0.3
    record_calibration(store, hashing, 0.3, source="dev.csv", questions=12, grid={},
                       hybrid=0.1)
    store.forget_facts()
    measured = dense_weight(store, hashing, RankingSettings())
    assert measured.weight == 0.3 and "calibrated on 12 questions of dev.csv" in measured.source
    assert hybrid_dense_weight(store, hashing, RankingSettings()).weight == 0.1
    assert dense_weight(store, hashing, RankingSettings(dense=0.7)).weight == 0.7
    assert hybrid_dense_weight(store, hashing, RankingSettings(hybrid_dense=0.7)).source == \
        "the settings"
    # a session fixes the weights in its settings: runs store the weights they fused with
    result = Pipeline(store, settings_of(llm__offline=True)).ask("Which viper is African?")
    assert result.settings.ranking.dense == 0.3 and "calibrated" in result.dense_from
    assert result.settings.ranking.hybrid_dense == 0.1
    assert "calibrated" in result.hybrid_dense_from


ONE_TYPE = ["noun_concept"]  # lists over one answer type: the hybrid list's linear fusion


class SemanticEmbedder:
    """Stands for a semantic model: an embedder that names no weight of its own."""

    model_id = "st:a-semantic-model"

    def __init__(self, dim: int) -> None:
        self.vectors = HashingEmbedder(dim)

    @property
    def dim(self) -> int:
        return self.vectors.dim

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        return self.vectors.embed(texts)


def test_bm25_leads_a_semantic_embedder_until_calibrated(store: Store, tmp_path: Path) -> None:
    """A semantic embedder's own weight (0.01) lets BM25 lead: counted as much as BM25,
    MiniLM's similarity pulled the hybrid list below BM25's on real text. Here the vectors
    put BM25's second answer first and its first answer fifth."""
    make(store, tmp_path)
    session = open_session(store, settings_of(llm__offline=True),
                           embedder=SemanticEmbedder(32))
    assert session.settings.ranking.dense == pytest.approx(0.01)
    assert session.settings.ranking.hybrid_dense == pytest.approx(0.1)
    assert "embedder's own" in session.dense_from
    assert "embedder's own" in session.hybrid_dense_from
    lexical = [(1, 9.0), (2, 8.0), (3, 7.0)]
    vss = [(2, 0.9), (4, 0.8), (5, 0.7), (6, 0.6), (1, 0.5)]
    default = fuse_hybrid(vss, lexical, 5, session.settings.ranking, ONE_TYPE)
    # BM25's first two lead; the vectors order what BM25 ranks last or not at all
    assert [c.node_id for c in default] == [1, 2, 4, 5, 6]
    trusted = fuse_hybrid(vss, lexical, 5, replace(session.settings.ranking,
                                                   hybrid_dense=1.0), ONE_TYPE)
    assert trusted[0].node_id == 2


def test_the_hybrid_list_weighs_each_question_by_its_own_scores(store: Store) -> None:
    """Linear fusion of min-max normalised scores: the same ranks in both lists, but where
    BM25 barely separates its first two the vectors decide, and where it separates them
    clearly they do not — which reciprocal rank fusion cannot tell apart."""
    ranking = RankingSettings(hybrid_dense=0.3)
    vss = [(2, 0.9), (1, 0.1), (3, 0.05)]
    close = fuse_hybrid(vss, [(1, 9.0), (2, 8.9), (3, 2.0)], 3, ranking, ONE_TYPE)
    assert [c.node_id for c in close] == [2, 1, 3]
    clear = fuse_hybrid(vss, [(1, 9.0), (2, 4.0), (3, 2.0)], 3, ranking, ONE_TYPE)
    assert [c.node_id for c in clear] == [1, 2, 3]
    by_rank = [fuse([(vss, 0.3), (lexical, 1.0)], method="rrf")
               for lexical in ([(1, 9.0), (2, 8.9), (3, 2.0)], [(1, 9.0), (2, 4.0), (3, 2.0)])]
    assert by_rank[0] == by_rank[1]


def test_calibration_from_the_command_line(duck_store: Store, tmp_path: Path) -> None:
    make(duck_store, tmp_path)
    questions = tmp_path / "dev.csv"
    questions.write_text('id,query,answer_ids,target_type\n'
                         '1,a large African viper that inflates its body,"[""4""]",'
                         'noun_concept\n'
                         '2,a small venomous viper of Europe,"[""3""]",noun_concept\n')
    path = str(duck_store.path)
    duck_store.close()
    done = CliRunner().invoke(cli, ["--db", path, "index", "--calibrate", str(questions)])
    assert done.exit_code == 0, done.output
    assert "kept dense weight" in done.output and done.output.count("← kept") == 2
    shown = CliRunner().invoke(cli, ["--db", path, "ask", "viper of Africa", "--explain"])
    assert "calibrated on 2 questions" in shown.output


def test_text_conditions_widen_the_scope_until_k_answers_meet_them(
        store: Store, tmp_path: Path) -> None:
    """"African" vipers: the exact name 'viper' grounds three kinds of viper at level 1,
    one whose text says African is not enough for k = 2 … but the other African one sits
    under the same name: the expansion goes on, with the text condition inside it."""
    make(store, tmp_path)
    pipeline = Pipeline(store, settings_of(llm__offline=True, ask__k=2, af__l_max=5,
                                           rerank__method="none"))
    cypher = ('MATCH (y:noun_concept)-[:noun_concept_is_a_kind_of_noun_concept]->'
              '(v:noun_concept {name: "viper"}) WHERE y.text CONTAINS "African" RETURN y')
    grounded = ground_cypher(pipeline.session, cypher)
    assert grounded.symbols["y"].texts_applied
    assert sorted(n for n, _ in grounded.result.answers) == [4, 5]
    assert not grounded.fixes  # the node's text is no attribute to fix
    # nothing meets the condition: grounded without it, the ranking weighs it
    missing = cypher.replace("African", "Antarctic")
    grounded = ground_cypher(pipeline.session, missing)
    assert not grounded.symbols["y"].texts_applied
    assert sorted(n for n, _ in grounded.result.answers) == [3, 4, 5]
    assert any("weighed in the ranking" in n for n in grounded.symbols["y"].notes)


def test_a_weak_cypher_counts_only_its_constants_own_matches() -> None:
    """Below WEAK_LINKING the graph strand re-ranks BM25's candidates with its first-level
    answers only: an answer found by widening a guessed link's scope adds no evidence."""
    from afr.methods.af.hybrid_ranking import WEAK_LEVEL, _fuse_strands, _GraphSide
    from afr.retrieval.candidate import Candidate

    lexical = [(1, 9.0), (2, 8.0), (3, 7.0), (4, 6.0)]
    graph = [Candidate(4, "graph", WEAK_LEVEL + 4), Candidate(3, "graph", WEAK_LEVEL)]
    side = _GraphSide(graph, [], lexical, [])
    weights = RankingSettings(dense=0.0)

    def order(confidence: float) -> list[int]:
        return [n for n, _ in _fuse_strands(side, [], lexical, 4, weights, confidence,
                                                  ONE_TYPE)]

    weak = order(0.2)
    assert weak.index(3) < weak.index(2)  # the first-level answer is lifted …
    assert weak.index(4) == 3  # … the wider one keeps BM25's place
    strong = order(1.0)
    assert strong.index(4) < strong.index(2)  # a trusted Cypher's wider answers count
    # with no first-level answer a weak Cypher has no say (and its note says so, from the
    # same _graph_list): the list is the hybrid list
    from afr.methods.af.hybrid_ranking import _graph_list
    from afr.retrieval.lists import hybrid_fusion

    wider = _GraphSide(graph[:1], [], lexical, [])
    assert _graph_list(wider.graph, 0.2, 100) == [] and _graph_list(wider.graph, 1.0, 100)
    assert _fuse_strands(wider, [], lexical, 4, weights, 0.2, ONE_TYPE) == \
        hybrid_fusion([], lexical, weights, ONE_TYPE)[:4]


def test_a_calibrated_weight_must_win_by_more_than_its_noise() -> None:
    """Of the weights within one standard error of the best MRR, the one nearest the
    embedder's own is kept: one question's luck does not move the weight."""
    from afr.evaluate.calibrate import choose_weight

    flat = [1.0, 0.5, 0.25, 1.0, 0.2, 0.5]
    lucky = [1.0, 0.5, 0.5, 1.0, 0.2, 0.5]  # one question one rank better
    worse = [0.5, 0.2, 0.1, 0.5, 0.0, 0.2]  # every question worse
    grid = {0.0: flat, 0.002: flat, 0.03: lucky, 1.0: worse}
    assert choose_weight(grid, own=0.002) == 0.002
    assert choose_weight(grid, own=1.0) == 0.03  # 1.0 loses by far more than its noise
    clear = {0.0: worse, 0.002: worse, 0.03: flat, 1.0: worse}
    assert choose_weight(clear, own=0.002) == 0.03


def test_text_conditions_alone_are_text_evidence_not_graph_evidence(
        store: Store, tmp_path: Path) -> None:
    """A Cypher that constrains only by wording ("limbless" for an African viper) grounds
    the snake; BM25 of the question finds the puff adder. The text match weighs as a text
    condition, so it does not take the lead, and a note says so; the same condition beside
    a relation is graph evidence and its answers lead."""
    make(store, tmp_path)
    pipeline = Pipeline(store, settings_of(llm__offline=True, ask__k=4,
                                           rerank__method="none"))
    question = "Which African viper inflates its body when alarmed?"
    alone = 'MATCH (y:noun_concept) WHERE y.text CONTAINS "limbless" RETURN y'
    result = pipeline.ask(question, cypher=alone, target_type="noun_concept")
    ids = [a.node_id for a in result.answers]
    assert ids[0] == 4 and 1 in ids  # BM25's first leads; the text match stays in
    assert any("constrains by text alone" in n for n in result.retrieved.notes)
    related = ('MATCH (y:noun_concept)-[:noun_concept_is_a_kind_of_noun_concept]->'
               '(v:noun_concept {name: "viper"}) WHERE y.text CONTAINS "Europe" RETURN y')
    result = pipeline.ask(question, cypher=related, target_type="noun_concept")
    assert result.answers[0].node_id == 3  # the grounded answer leads
    assert not any("constrains by text alone" in n for n in result.retrieved.notes)
    compared = 'MATCH (y:noun_concept) WHERE y.name = "snake" RETURN y'
    result = pipeline.ask(question, cypher=compared, target_type="noun_concept")
    assert not any("constrains by text alone" in n for n in result.retrieved.notes)


def test_the_graph_strand_is_ranked_by_what_the_constants_leave_of_the_question(
        store: Store, tmp_path: Path) -> None:
    """Every grounded answer already meets the constants, so their names in the question
    cannot tell the answers apart: the graph strand is ranked by the rest of the question
    ("… has compact buttons"), not by likeness to the named product."""
    from afr.methods.af.hybrid_ranking import hybrid_strands, residual_question
    from afr.vectors.search import query_vector

    assert residual_question("Is X viewed with titanium knife set A?",
                             ["Titanium Knife Set A", "x"]) == "Is   viewed with  ?"
    assert residual_question("Titanium Knife Set A?", ["titanium knife set a"]) == \
        "Titanium Knife Set A?"  # nothing left to rank by: the question as asked
    schema = _schema("shop", ["product"], {"viewed": "product_also_viewed_with_product"}, [])
    texts = {1: ("Titanium Knife Set A", "a titanium knife set"),
             2: ("Titanium Knife Set B", "a titanium knife set, sharp"),
             3: ("Desk Lamp C", "a lamp with compact buttons")}
    texts |= {i: (f"Mug {i}", "a mug") for i in range(4, 14)}
    nodes = [{"id": i, "type": "product", "name": n, "text": t} for i, (n, t) in texts.items()]
    edges = [(1, "viewed", n) for n in range(2, 8)]
    load_skb_dir(store, write_skb(tmp_path / "skb", schema, nodes, edges), progress=False)
    embedder = HashingEmbedder(64)
    embed_store(store, embedder, progress=False)
    build_lexical_index(store, progress=False)
    question = "Which product viewed together with Titanium Knife Set A has compact buttons?"
    rest = residual_question(question, ["Titanium Knife Set A"])
    grounded = [(n, 1) for n in range(2, 8)]

    def first(residual: tuple[str, np.ndarray] | None) -> int:
        strands = hybrid_strands(store, query_vector(store, embedder, question), question,
                                 grounded, ["product"], 5, weights=RankingSettings(),
                                 residual=residual)
        return strands.graph[0].node_id

    assert first(None) == 2  # the named product's likeness leads
    assert first((rest, query_vector(store, embedder, rest))) == 3
